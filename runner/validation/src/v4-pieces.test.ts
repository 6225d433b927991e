import { describe, expect, it } from "vitest";
import type { CaseRecord } from "./benchmark.ts";
import { perturbationTypeOf } from "./perturbation-type.ts";
import { summarizeMethod } from "./summary.ts";

describe("validate's v4 pieces", () => {
  it("reads the perturbation type a submitter would give from a case's direction", () => {
    expect(perturbationTypeOf("stimulation")).toBe("ligand");
    expect(perturbationTypeOf("inhibitor")).toBe("drug");
    expect(perturbationTypeOf("loss_of_function")).toBe("knockout");
    expect(perturbationTypeOf("inactivation")).toBe("knockdown");
    expect(perturbationTypeOf("gain_of_function")).toBe("overexpression");
    expect(perturbationTypeOf("mutant")).toBe("unknown");
    expect(perturbationTypeOf(null)).toBe("unknown");
    expect(perturbationTypeOf("")).toBe("unknown");
  });

  it("reports the share of cases ranked, and the 90 % sets' coverage and median size over the ranked ones", () => {
    const rec = (id: string, q: number | null, size?: number, holds?: boolean | null): CaseRecord => ({
      id,
      source: "s",
      method: "v4",
      q,
      rank: q === null ? null : 0,
      n_candidates: 10,
      q_targets: {},
      q_star: q,
      ...(size === undefined ? {} : { set_size: size, set_holds_driver: holds ?? null }),
    });
    const records = [
      rec("a", 0.1, 3, true),
      rec("b", 0.5, 9, false),
      rec("c", 0.2, 5, true),
      rec("d", null, 4, null),
    ];
    const truth = new Map(
      records.map((r) => [r.id, { expected: r.id.toUpperCase(), accepted: [r.id.toUpperCase()] }]),
    );
    const s = summarizeMethod("v4", records, truth);
    expect(s.ranked_share).toBe(0.75);
    expect(s.set_coverage).toBeCloseTo(2 / 3, 12);
    expect(s.median_set_size).toBe(5);
    const none = summarizeMethod("v4", [rec("a", 0.1)], truth);
    expect(Number.isNaN(none.set_coverage)).toBe(true);
  });
});
