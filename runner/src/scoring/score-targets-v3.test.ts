import { describe, expect, it } from "vitest";
import { toySymbols } from "../../test/fixtures/model/toy.ts";
import { parseGmt } from "../libraries/index.ts";
import { buildModel } from "../model/model-import.ts";
import { cauchy } from "./combine-pvalues.ts";
import { scoreTargets } from "./score-targets-v1.ts";
import { V3_WEIGHTS, activationState, scoreTargetsV3, type ScoreTargetsV3Input } from "./score-targets-v3.ts";

// A: a TF with a small regulon (x, y up; z down) that also signals into the hub H.
// H: a hub TF regulating most genes. C: a TF regulating w only. K: a kinase acting on A.
const GENES = ["x", "y", "z", "w", "g1", "g2", "g3", "g4", "g5", "g6", "g7", "g8"];
const NETWORK = [
  "source\ttarget\tsign\tedge_type\tresource\tevidence",
  "A|PROTEIN\tx|RNA\t1\ttranscriptional\tToy\t",
  "A|PROTEIN\ty|RNA\t1\ttranscriptional\tToy\t",
  "A|PROTEIN\tz|RNA\t-1\ttranscriptional\tToy\t",
  "A|PROTEIN\tH|PROTEIN\t1\tsignaling\tToy\t",
  ...["g1", "g2", "g3", "g4", "g5", "g6", "w"].map((g) => `H|PROTEIN\t${g}|RNA\t1\ttranscriptional\tToy\t`),
  "C|PROTEIN\tw|RNA\t1\ttranscriptional\tToy\t",
  "K|PROTEIN\tA|PROTEIN\t1\tsignaling\tToy\t",
].join("\n");
const SYMBOLS = toySymbols(["H", "K", ...GENES.filter((g) => !["x", "y", "z"].includes(g))]);

describe("model v3 scoring", async () => {
  const base = await buildModel({
    network: NETWORK,
    symbols: SYMBOLS,
    threads: 1,
    version: "toy-v3",
    scoring: "v3",
  });
  const layers = [
    parseGmt(Buffer.from("C_EXP1\t\tx\ty\tz\nH_EXP1\t\tg7\tg8\n"), "chip", "tf_binding", SYMBOLS),
    parseGmt(Buffer.from("C\t\tx\ty\tg1\nA\t\tg2\tg3\n"), "coexp", "tf_coexpression", SYMBOLS),
    parseGmt(Buffer.from("K_PhosD\t\tA\tx\n"), "kin", "kinase", SYMBOLS),
  ];
  const model = base.withLayers(layers);
  const degs = ["x", "y", "z"];
  const input: ScoreTargetsV3Input = {
    model,
    universe: GENES,
    degs,
    degSignificanceFold: 1,
    minMeanExpression: 0.1,
    isDegSymbols: new Set(degs),
    nRandomizations: 0,
    seedSource: "toy/",
    log2fc: new Map([
      ["x", 2],
      ["y", 1.5],
      ["z", -1],
    ]),
    jobType: "target_validation",
  };
  const res = scoreTargetsV3(input);
  const row = (s: string) => res.rows.find((r) => r.id === `${s}|PROTEIN`)!;

  it("orders by score = prior logit + weighted evidence, and reports the pieces", () => {
    const scores = res.rows.map((r) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    const c = row("C");
    const ev = (p: number | null): number => (p === null ? 0 : Math.log1p(-Math.log10(p)));
    const expectedLogit = V3_WEIGHTS.logOutDegree * Math.log1p(1) + V3_WEIGHTS.tfLayers * 2;
    expect(c.prior_logit).toBeCloseTo(expectedLogit, 12);
    expect(c.score).toBeCloseTo(
      expectedLogit +
        V3_WEIGHTS.propagated * ev(c.pvalue_propagated as number) +
        V3_WEIGHTS.tfBinding * ev(c.pvalue_tf_binding as number | null) +
        V3_WEIGHTS.tfCoexpression * ev(c.pvalue_tf_coexpression as number | null),
      10,
    );
    expect(c.n_layers).toBe(2);
    expect(row("K").pvalue_kinase).not.toBeNull();
    expect(row("A").pvalue_tf_binding).toBeNull();
  });

  it("reports a data-only p-value (no prior in it) and a prior that sums to 1", () => {
    const c = row("C");
    const ps = [c.pvalue_propagated, c.pvalue_tf_binding, c.pvalue_tf_coexpression].filter(
      (p): p is number => typeof p === "number",
    );
    expect(c.pvalue_data).toBeCloseTo(cauchy(ps, true), 14);
    expect(c.pvalue).toBe(c.pvalue_data);
    const total = res.rows.reduce((a, r) => a + (r.prior as number), 0);
    expect(total).toBeCloseTo(1, 12);
    // v1's propagated evidence is what v1 computes on the same bundle.
    const v1 = scoreTargets(input);
    expect(row("A").pvalue_propagated).toBe(v1.rows.find((r) => r.id === "A|PROTEIN")!.pvalue);
  });

  it("names the activation state from the activation z and is unchanged in rank by a global sign flip", () => {
    expect(row("A").activation_state).toBe("undetermined"); // three signed targets: |z| = 1.73, p 0.08
    expect(activationState(2.5, 0.012)).toBe("activated");
    expect(activationState(-2.5, 0.012)).toBe("inhibited");
    expect(activationState(0.5, 0.6)).toBe("undetermined");
    expect(activationState(NaN, NaN)).toBe("undetermined");
    const flipped = scoreTargetsV3({
      ...input,
      log2fc: new Map([...input.log2fc!].map(([g, v]) => [g, v === null ? null : -v])),
    });
    expect(flipped.rows.map((r) => r.id)).toEqual(res.rows.map((r) => r.id));
    expect(flipped.rows.map((r) => r.activation_z)).toEqual(
      res.rows.map((r) => (r.activation_z === null ? null : -(r.activation_z as number) + 0)),
    );
  });

  it("keeps a candidate whose gene the data did not measure in place, and flags it", () => {
    const measured = scoreTargetsV3({ ...input, measuredGenes: new Set(GENES) });
    const partial = scoreTargetsV3({ ...input, measuredGenes: new Set(GENES.filter((g) => g !== "w")) });
    expect(partial.rows.map((r) => r.id)).toEqual(measured.rows.map((r) => r.id));
    // No candidate is named like a gene here except through the symbol table; C's gene is not measured in either.
    expect(partial.rows.find((r) => r.id === "C|PROTEIN")!.gene_measured).toBe(false);
  });

  it("ranks a candidate whose layer sets are enriched above the same model without layers", () => {
    const none = scoreTargetsV3({ ...input, layers: [] });
    const rankOf = (r: typeof res, s: string) => r.rows.find((x) => x.id === `${s}|PROTEIN`)!.rank;
    expect(rankOf(res, "C")).toBeLessThan(rankOf(none, "C"));
    expect(none.rows.every((r) => r.pvalue_tf_binding === null && r.n_layers === 0)).toBe(true);
  });
});
