import { describe, expect, it } from "vitest";
import { mad, median, trimmedMean } from "./stats.ts";
import normalQuantile from "@stdlib/stats-base-dists-normal-quantile";
import { dispersionPriorVariance } from "./prior-var.ts";

describe("order statistics with R's conventions", () => {
  const x = [3, 1, 4, 1, 5, 9, 2, 6];
  it("median, mad and trimmed means equal R's", () => {
    // R 4.2: median 3.5, mad 2.9652, mean(trim = 1/3) 3.5, mean(trim = 1/8) 3.5, mean(trim = 0.001) 3.875.
    expect(median(x)).toBe(3.5);
    expect(mad(x)).toBeCloseTo(2.9652, 12);
    expect(trimmedMean(x, 1 / 3)).toBe(3.5);
    expect(trimmedMean(x, 1 / 8)).toBe(3.5);
    expect(trimmedMean(x, 0.001)).toBe(3.875);
  });
});

describe("dispersion prior variance (model.md §5.5 step 5)", () => {
  it("uses max(MAD² − ψ1((m − p)/2), 0.25) above 3 residual degrees of freedom", () => {
    // R: max(1.5 - trigamma(2), 0.25) = 0.85506593315177359.
    const r = dispersionPriorVariance(new Float64Array([0]), 1.5, 4);
    expect(r.method).toBe("mad");
    expect(r.value).toBeCloseTo(0.85506593315177359, 14);
    expect(dispersionPriorVariance(new Float64Array([0]), 0.1, 6).value).toBe(0.25);
  });

  it("matches residuals drawn from log(χ²₁) + N(0, 1) to a variance near 1 with 1 residual df", () => {
    // Deterministic "draws": quantiles of log χ²₁ crossed with quantiles of N(0, 1), so the
    // empirical distribution is log χ²₁ convolved with N(0, 1).
    const res: number[] = [];
    const n = 60;
    for (let i = 0; i < n; i++) {
      const z = normalQuantile((1 + (i + 0.5) / n) / 2, 0, 1); // |z| quantiles: z² ~ χ²₁
      for (let k = 0; k < n; k++) res.push(Math.log(z * z) + normalQuantile((k + 0.5) / n, 0, 1));
    }
    const r = dispersionPriorVariance(Float64Array.from(res), 0, 1);
    expect(r.method).toBe("kl-matching");
    expect(r.value).toBeGreaterThan(0.9);
    expect(r.value).toBeLessThan(1.1);
  });
});
