import { describe, expect, it } from "vitest";
import { toySymbols } from "../../test/fixtures/model/toy.ts";
import { buildModel } from "../model/model-import.ts";
import { exactScore } from "../../test/fixtures/scoring/exact-hypergeometric.ts";
import { benjaminiHochbergDense as benjaminiHochberg } from "../stats/multiple-testing.ts";
import { benjaminiYekutieli } from "../stats/multiple-testing.ts";
import { cauchy, combine, simes } from "./combine-pvalues.ts";
import { scoreTargets } from "./score-targets-v1.ts";
import {
  pvalueExpressed,
  scoreTargetsV2,
  singleEdgeProxies,
  type ScoreTargetsV2Input,
} from "./score-targets-v2.ts";

// A: a TF with a small regulon (x, y up; z down) that also signals into the hub H.
// H: a hub TF regulating most genes. P: a protein whose only edge enters H (a proxy).
// C: a TF regulating w only.
const GENES = ["x", "y", "z", "w", "g1", "g2", "g3", "g4", "g5", "g6"];
const NETWORK = [
  "source\ttarget\tsign\tedge_type\tresource\tevidence",
  "A|PROTEIN\tx|RNA\t1\ttranscriptional\tToy\t",
  "A|PROTEIN\ty|RNA\t1\ttranscriptional\tToy\t",
  "A|PROTEIN\tz|RNA\t-1\ttranscriptional\tToy\t",
  "A|PROTEIN\tH|PROTEIN\t1\tsignaling\tToy\t",
  ...["g1", "g2", "g3", "g4", "g5", "g6", "w"].map((g) => `H|PROTEIN\t${g}|RNA\t1\ttranscriptional\tToy\t`),
  "P|PROTEIN\tH|PROTEIN\t1\tsignaling\tToy\t",
  "C|PROTEIN\tw|RNA\t1\ttranscriptional\tToy\t",
].join("\n");

describe("model v2 scoring", async () => {
  const model = await buildModel({
    network: NETWORK,
    symbols: toySymbols(["H", "P", ...GENES.filter((g) => !["x", "y", "z"].includes(g))]),
    threads: 1,
    version: "toy-v2",
  });
  const fc = new Map<string, number>([
    ["x", 2],
    ["y", 1.5],
    ["z", -1],
  ]);
  const input: ScoreTargetsV2Input = {
    model,
    universe: GENES,
    degs: ["x", "y", "z"],
    degSignificanceFold: 1,
    minMeanExpression: 0.1,
    isDegSymbols: new Set(["x", "y", "z"]),
    nRandomizations: 0,
    seedSource: "toy/",
    log2fc: fc,
    settings: { evidence: "propagated+direct+direction", combine: "simes", unmeasured: "after_measured" },
    jobType: "target_validation",
  };
  const res = scoreTargetsV2(input);
  const row = (s: string) => res.rows.find((r) => r.id === `${s}|PROTEIN`)!;

  it("finds single-edge proxies and ranks them right after the candidate they feed", () => {
    const proxies = singleEdgeProxies(model);
    expect(proxies[model.sourceIndex("P")]).toBe(model.sourceIndex("H"));
    expect(proxies[model.sourceIndex("A")]).toBe(-1);
    expect(row("P").proxy_of).toBe("H|PROTEIN");
    expect(row("P").rank).toBe(row("H").rank + 1);
    expect(row("P").pvalue).toBeGreaterThanOrEqual(row("H").pvalue);
  });

  it("adds the exact overlap p-value of the direct targets and combines it by Simes", () => {
    // A's targets x, y, z are all DEGs: N = 10, K = 3, n = 3, k = 3.
    expect(row("A").n_direct_targets).toBe(3);
    expect(row("A").n_direct_target_degs).toBe(3);
    expect(-Math.log10(row("A").pvalue_direct as number)).toBeCloseTo(exactScore(3, 10, 3, 3), 9);
    const ps = [
      row("A").pvalue_propagated as number,
      row("A").pvalue_direct as number,
      row("A").pvalue_direction as number,
    ];
    expect(row("A").pvalue).toBeCloseTo(simes(ps), 12);
    expect(row("A").rank).toBe(0);
    // IPA z: (+1·+1 + +1·+1 + −1·−1)/√3.
    expect(row("A").activation_z).toBeCloseTo(3 / Math.sqrt(3), 12);
  });

  it("keeps v1's counts and gives the same ranking when every fold change flips sign", () => {
    const v1 = scoreTargets(input);
    for (const r of v1.rows) expect(row(r.id.split("|")[0]!).n_degs_significant).toBe(r.n_degs_significant);
    const flipped = scoreTargetsV2({ ...input, log2fc: new Map([...fc].map(([g, v]) => [g, -v])) });
    expect(flipped.rows.map((r) => r.id)).toEqual(res.rows.map((r) => r.id));
    expect(flipped.rows.map((r) => r.pvalue)).toEqual(res.rows.map((r) => r.pvalue));
    expect(flipped.rows.find((r) => r.id === "A|PROTEIN")!.activation_z).toBeCloseTo(-Math.sqrt(3), 12);
  });

  it("combines the ULM p-value only where a candidate has one (five signed targets measured)", () => {
    // Every toy regulon has fewer than five targets: the ULM setting falls back to the others.
    const settings = {
      evidence: "propagated+direct+ulm",
      combine: "truncated_cauchy",
      unmeasured: "after_measured",
    } as const;
    const ulm = scoreTargetsV2({ ...input, settings });
    const base = scoreTargetsV2({ ...input, settings: { ...settings, evidence: "propagated+direct" } });
    expect(ulm.rows.every((r) => r.pvalue_ulm === null)).toBe(true);
    expect(ulm.rows.map((r) => r.pvalue)).toEqual(base.rows.map((r) => r.pvalue));
    const a = ulm.rows.find((r) => r.id === "A|PROTEIN")!;
    expect(a.pvalue).toBe(
      combine("truncated_cauchy", [a.pvalue_propagated as number, a.pvalue_direct as number]),
    );
  });

  it("ranks candidates not expressed in the control arm after all others", () => {
    const expressed = scoreTargetsV2({
      ...input,
      meanCp10kControl: new Map([
        ["A", 0.01],
        ["H", 5],
        ["C", 5],
        ["P", 5],
      ]),
    });
    const last = expressed.rows.at(-1)!;
    expect(last.id).toBe("A|PROTEIN");
    expect(last.protein_expressed).toBe(false);
    expect(expressed.rows.map((r) => r.rank)).toEqual(expressed.rows.map((_, i) => i));
  });

  // Evidence alone ranks A, C, H, P (H's proxy). Tiers: measured (or nothing measured), then
  // not measured, then measured but not expressed; within a tier the evidence order holds.
  it.each([
    {
      name: "nothing measured (a bare DEG list)",
      measured: undefined,
      rule: "after_measured",
      order: "ACHP",
    },
    { name: "A not measured", measured: ["H", "P", "C"], rule: "after_measured", order: "CHPA" },
    { name: "A not measured, rule in place", measured: ["H", "P", "C"], rule: "in_place", order: "ACHP" },
    {
      name: "A not measured, C measured but not expressed",
      measured: ["H", "P", "C"],
      rule: "after_measured",
      order: "HPAC",
      notExpressed: "C",
    },
    {
      name: "A and H not measured: H's measured proxy P still follows H",
      measured: ["P", "C"],
      rule: "after_measured",
      order: "CAHP",
    },
  ] as const)("ranks unmeasured candidates by tier: $name", ({ measured, rule, order, ...rest }) => {
    const notExpressed = "notExpressed" in rest ? rest.notExpressed : null;
    const ranked = scoreTargetsV2({
      ...input,
      settings: { ...input.settings!, unmeasured: rule },
      ...(measured ? { measuredGenes: new Set<string>(measured) } : {}),
      ...(notExpressed ? { meanCp10kControl: new Map([[notExpressed, 0]]) } : {}),
    });
    expect(ranked.rows.map((r) => r.id.split("|")[0]).join("")).toBe(order);
    const a = ranked.rows.find((r) => r.id === "A|PROTEIN")!;
    expect(a.gene_measured).toBe(measured ? measured.includes("A" as never) : null);
    expect(a.unmeasured).toBe(rule);
  });

  // A (first on evidence) has 0.01 CP10k in the control arm, under the 0.1 threshold. Whether
  // that is absence depends on depth: at 0.1 CP10k a 10⁷-count arm would hold 100 reads of it.
  it.each([
    { name: "no counts (a DE table's column): the threshold decides", depth: undefined, aLast: true },
    { name: "a deep arm with 1 read: absent", depth: { librarySize: 1e7, count: 1 }, aLast: true },
    {
      name: "a shallow arm with 0 reads: too few to tell",
      depth: { librarySize: 2e4, count: 0 },
      aLast: false,
    },
  ])(
    "ranks a gene under the expression threshold last only when the counts say so: $name",
    ({ depth, aLast }) => {
      const ranked = scoreTargetsV2({
        ...input,
        meanCp10kControl: new Map([["A", 0.01]]),
        ...(depth
          ? { controlDepth: { librarySize: depth.librarySize, counts: new Map([["A", depth.count]]) } }
          : {}),
      });
      const a = ranked.rows.find((r) => r.id === "A|PROTEIN")!;
      expect(a.protein_expressed).toBe(false);
      expect(a.rank === ranked.rows.length - 1).toBe(aLast);
      expect(a.pvalue_expressed).toBe(depth ? pvalueExpressed(depth.count, depth.librarySize, 0.1) : null);
    },
  );

  it("pvalue_expressed is the Poisson probability of so few reads at the threshold", () => {
    // λ = 10⁶ · 0.1 / 10⁴ = 10.
    expect(pvalueExpressed(0, 1e6, 0.1)).toBeCloseTo(Math.exp(-10), 15);
    expect(pvalueExpressed(2.7, 1e6, 0.1)).toBeCloseTo(Math.exp(-10) * (1 + 10 + 50), 15);
    expect(pvalueExpressed(10, 1e6, 0.1)).toBeGreaterThan(0.5);
  });

  it("reorders the influence matrix rows with the ranking", () => {
    const v1 = scoreTargets(input);
    const n = res.n;
    for (const [i, id] of res.sourceInfluence.rowIds.entries()) {
      const j = v1.sourceInfluence.rowIds.indexOf(id);
      expect(Array.from(res.sourceInfluence.data.subarray(i * n, (i + 1) * n))).toEqual(
        Array.from(v1.sourceInfluence.data.subarray(j * n, (j + 1) * n)),
      );
    }
  });
});

describe("Benjamini–Yekutieli q-values", () => {
  it("are BH q-values of p·H_M, capped at 1", () => {
    const p = [0.001, 0.01, 0.02, 0.5];
    const h = 1 + 1 / 2 + 1 / 3 + 1 / 4;
    const bh = benjaminiHochberg(p.map((v) => v * h));
    expect(Array.from(benjaminiYekutieli(p))).toEqual(Array.from(bh, (v) => Math.min(1, v)));
    expect(benjaminiYekutieli([0.9, 0.95])[0]).toBe(1);
  });
});

describe("p-value combinations", () => {
  it("Simes takes min m·p(i)/i", () => {
    expect(simes([0.01, 0.5])).toBeCloseTo(0.02, 15);
    expect(simes([0.04, 0.03])).toBeCloseTo(0.04, 15);
    expect(simes([1])).toBe(1);
  });
  it("Cauchy combination returns a single p unchanged and stays finite for extreme inputs", () => {
    expect(cauchy([0.3])).toBeCloseTo(0.3, 10);
    expect(cauchy([1e-200, 0.5])).toBeCloseTo(2e-200, 205);
    expect(cauchy([0.02, 1])).toBeLessThan(1);
    expect(cauchy([0.5, 0.5])).toBeCloseTo(0.5, 12);
  });
  it("truncated Cauchy lets no p above 1/2 cancel a small one", () => {
    // Untruncated, p = 1 − 1e-6 swamps p = 1e-3; truncated, it counts as 1/2 (a zero term).
    expect(cauchy([1e-3, 1 - 1e-6])).toBeGreaterThan(0.5);
    const t = Math.tan((0.5 - 1e-3) * Math.PI) / 2;
    expect(cauchy([1e-3, 1 - 1e-6], true)).toBeCloseTo(0.5 - Math.atan(t) / Math.PI, 15);
    expect(cauchy([1e-3, 1 - 1e-6], true)).toBeCloseTo(2e-3, 5);
    expect(combine("truncated_cauchy", [1e-3, 0.9])).toBe(cauchy([1e-3, 0.5]));
    expect(combine("truncated_cauchy", [0.8, 0.9])).toBeCloseTo(0.5, 12);
    // Below 1/2 it is ACAT.
    expect(combine("truncated_cauchy", [0.01, 0.2])).toBe(cauchy([0.01, 0.2]));
  });
});
