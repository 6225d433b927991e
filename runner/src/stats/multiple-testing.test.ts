import { describe, expect, it } from "vitest";
import { benjaminiHochberg } from "./multiple-testing.ts";

describe("benjaminiHochberg", () => {
  it("equals R's p.adjust(method = 'BH') and skips nulls", () => {
    // p.adjust(c(0.01, 0.04, 0.03, 0.2, NA, 0.04), "BH") in R 4.2.
    expect(benjaminiHochberg([0.01, 0.04, 0.03, 0.2, null, 0.04])).toEqual([
      0.05,
      0.05,
      0.05,
      0.2,
      null,
      0.05,
    ]);
  });

  it("is monotone in p and capped at 1", () => {
    const out = benjaminiHochberg([0.9, 0.99, 0.5]);
    expect(out).toEqual([0.99, 0.99, 0.99]);
    expect(benjaminiHochberg([1, 1])).toEqual([1, 1]);
  });
});
