import { describe, expect, it } from "vitest";
import { toySymbols } from "../../../test/fixtures/model/toy.ts";
import { V4_EXTRA_COLUMNS } from "@causeway/contract";
import { parseGmt, parsePairs } from "../../libraries/index.ts";
import { buildModel } from "../../model/model-import.ts";
import { scoreTargetsV3 } from "../score-targets-v3.ts";
import {
  LIST_KINDS,
  LIST_SIZES,
  N_V4_FEATURES,
  PERTURBATION_TYPES,
  V4_FEATURES,
  layerRanks,
  listKindOf,
  v4Features,
  type PerturbationType,
} from "./features.ts";
import { scoreTargetsV4, softmax, weightsFor, type ScoreTargetsV4Input } from "./score-targets-v4.ts";
import type { V4Model } from "./weights.ts";
import { sourceClasses } from "./candidate-classes.ts";

// L: a ligand (no signalling in-edge) on receptor R; R signals to kinase K, K to TF A; A and
// the hub TF H regulate the genes.
const GENES = ["x", "y", "z", "w", "g1", "g2", "g3", "g4", "g5", "g6", "g7", "g8"];
const NETWORK = [
  "source\ttarget\tsign\tedge_type\tresource\tevidence",
  "L|PROTEIN\tR|PROTEIN\t1\tsignaling\tToy\t",
  "R|PROTEIN\tK|PROTEIN\t1\tsignaling\tToy\t",
  "K|PROTEIN\tA|PROTEIN\t1\tsignaling\tToy\t",
  "A|PROTEIN\tx|RNA\t1\ttranscriptional\tToy\t",
  "A|PROTEIN\ty|RNA\t1\ttranscriptional\tToy\t",
  "A|PROTEIN\tz|RNA\t-1\ttranscriptional\tToy\t",
  ...["g1", "g2", "g3", "g4", "g5", "g6", "w"].map((g) => `H|PROTEIN\t${g}|RNA\t1\ttranscriptional\tToy\t`),
].join("\n");
// P and Q are genes the network does not hold: a PPI layer and a kinase library name them.
const SYMBOLS = toySymbols([
  "H",
  "K",
  "L",
  "R",
  "P",
  "Q",
  ...GENES.filter((g) => !["x", "y", "z"].includes(g)),
]);

const noTypes = (): V4Model["byType"] => ({
  ligand: {},
  drug: {},
  knockout: {},
  knockdown: {},
  overexpression: {},
  unknown: {},
});
const thresholds = (value: number, rule: "aps" | "top" = "aps"): V4Model["predictionSet"] =>
  Object.fromEntries(
    PERTURBATION_TYPES.flatMap((t) =>
      LIST_KINDS.flatMap((k) => LIST_SIZES.map((z) => [`${t}/${k}/${z}`, { rule, value }])),
    ),
  ) as V4Model["predictionSet"];
const casesPerGroup = (n: number): V4Model["developmentCases"] =>
  Object.fromEntries(
    PERTURBATION_TYPES.flatMap((t) => LIST_KINDS.map((k) => [`${t}/${k}`, n])),
  ) as V4Model["developmentCases"];
const toyModel = (m: Partial<V4Model>): V4Model => ({
  shared: {},
  byType: noTypes(),
  byKind: { table: {}, signed: {}, one_sided: {}, unsigned: {} },
  byGroup: {},
  temperature: 1,
  predictionSet: thresholds(0.9),
  developmentCases: casesPerGroup(100),
  ...m,
});

describe("model v4 scoring", async () => {
  const model = await buildModel({
    network: NETWORK,
    symbols: SYMBOLS,
    threads: 1,
    version: "toy-v4",
    scoring: "v4",
  });
  const degs = ["x", "y", "z"];
  const input: ScoreTargetsV4Input = {
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
  const row = (res: ReturnType<typeof scoreTargetsV4>, s: string) =>
    res.rows.find((r) => r.id === `${s}|PROTEIN`)!;

  it("places each candidate from the network alone: TF, steps above a TF, cascade head, below the head", () => {
    const cls = sourceClasses(model);
    const at = (s: string) => model.sourceIndex(s);
    expect(cls.isTf[at("A")]).toBe(1);
    expect(cls.steps[at("K")]).toBe(1);
    expect(cls.steps[at("R")]).toBe(2);
    expect(cls.steps[at("L")]).toBe(3);
    expect(cls.apex[at("L")]).toBe(1);
    expect(cls.apex[at("K")]).toBe(0);
    expect(cls.belowApex[at("R")]).toBe(1);
    expect(cls.belowApex[at("K")]).toBe(0);
  });

  it("scores the weighted features of the submitter's type, and ranks by that score", () => {
    const m = toyModel({ shared: { propagated: 1 }, byType: { ...noTypes(), ligand: { apex: 3 } } });
    const x = v4Features(input, scoreTargetsV3(input));
    for (const type of ["ligand", "unknown"] as PerturbationType[]) {
      const res = scoreTargetsV4({ ...input, v4: m, perturbationType: type });
      const w = weightsFor(m, type, "signed");
      for (const s of ["A", "L", "H"]) {
        const i = model.sourceIndex(s);
        const expected = V4_FEATURES.reduce((a, _, f) => a + w[f]! * x[i * N_V4_FEATURES + f]!, 0);
        expect(row(res, s).score).toBeCloseTo(expected, 12);
      }
      const scores = res.rows.map((r) => r.score);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    }
    const asLigand = scoreTargetsV4({ ...input, v4: m, perturbationType: "ligand" });
    const untyped = scoreTargetsV4({ ...input, v4: m });
    expect(row(asLigand, "L").rank).toBeLessThan(row(untyped, "L").rank);
    expect(row(untyped, "L").perturbation_type).toBe("unknown");
  });

  it("gives probabilities that sum to 1, sharpen as the temperature falls, and a set that reaches the threshold", () => {
    const m = toyModel({ shared: { propagated: 2, ulm: 1 }, predictionSet: thresholds(0.5) });
    const res = scoreTargetsV4({ ...input, v4: m });
    const total = res.rows.reduce((a, r) => a + (r.probability as number), 0);
    expect(total).toBeCloseTo(1, 12);
    const inSet = res.rows.filter((r) => r.in_prediction_set === true);
    const mass = inSet.reduce((a, r) => a + (r.probability as number), 0);
    expect(mass).toBeGreaterThanOrEqual(0.5);
    // The fewest: without its least probable member the set falls short.
    const least = Math.min(...inSet.map((r) => r.probability as number));
    expect(mass - least).toBeLessThan(0.5);
    expect(res.rows.every((r) => r.prediction_set_size === inSet.length)).toBe(true);
    const sharp = scoreTargetsV4({ ...input, v4: { ...m, temperature: 0.5 } });
    const top = res.rows[0]!.id;
    expect(sharp.rows.find((r) => r.id === top)!.probability as number).toBeGreaterThan(
      res.rows[0]!.probability as number,
    );
    const all = scoreTargetsV4({ ...input, v4: { ...m, predictionSet: thresholds(1) } });
    expect(all.rows.filter((r) => r.in_prediction_set === true).length).toBe(all.rows.length);
    const top3 = scoreTargetsV4({ ...input, v4: { ...m, predictionSet: thresholds(3, "top") } });
    expect(top3.rows.map((r) => r.in_prediction_set)).toEqual(top3.rows.map((_, i) => i < 3));
    expect(top3.rows[0]!.prediction_set_size).toBe(3);
  });

  it("reads a DE table's fold changes (not a bare list's) into the table ULM, and names the list kind", () => {
    expect(listKindOf(input)).toBe("signed");
    expect(listKindOf({ ...input, log2fc: new Map([["x", 1]]) })).toBe("one_sided");
    expect(listKindOf({ ...input, log2fc: undefined })).toBe("unsigned");
    const table = new Map(Array.from({ length: 300 }, (_, i) => [`gene${i}`, i % 2 ? 1 : -1]));
    expect(listKindOf({ ...input, log2fc: table })).toBe("table");
    const noTable = v4Features(input, scoreTargetsV3(input));
    const c = V4_FEATURES.indexOf("has_table");
    expect(
      Array.from({ length: model.nSources }, (_, s) => noTable[s * N_V4_FEATURES + c]).every((v) => v === 0),
    ).toBe(true);
  });

  it("regresses the table ULM on the DE test's statistic when the job has one, else on the fold changes", () => {
    const genes = Array.from({ length: 300 }, (_, i) => `gene${i}`);
    const noise = (i: number): number => Math.sin(i * 12.9898) * 0.5;
    // H's targets moved a long way (fold changes) but, by the statistic, no more than the rest.
    const fold = new Map([
      ...genes.map((g, i): [string, number] => [g, noise(i)]),
      ...["g1", "g2", "g3", "g4", "g5", "g6", "w"].map((g): [string, number] => [g, 4]),
    ]);
    const stat = new Map([...fold].map(([g], i): [string, number] => [g, noise(i + 1000)]));
    const ulmOf = (i: Partial<ScoreTargetsV4Input>): number => {
      const x = v4Features({ ...input, ...i }, scoreTargetsV3({ ...input, ...i }));
      return x[model.sourceIndex("H") * N_V4_FEATURES + V4_FEATURES.indexOf("ulm_table")]!;
    };
    const onFold = ulmOf({ log2fc: fold });
    const onStat = ulmOf({ log2fc: fold, testStatistic: stat });
    expect(onStat).toBeCloseTo(ulmOf({ log2fc: stat }), 12);
    expect(onFold).toBeGreaterThan(onStat + 0.5);
    // A statistic over too few genes to be a table's is not read.
    expect(ulmOf({ log2fc: fold, testStatistic: new Map([...stat].slice(0, 50)) })).toBe(onFold);
  });

  it("turns layer evidence into within-job ranks: mean over the groups holding a candidate, and the best", () => {
    const F = N_V4_FEATURES;
    const x = new Float64Array(3 * F);
    const at = (s: number, f: string) => s * F + V4_FEATURES.indexOf(f as (typeof V4_FEATURES)[number]);
    // tf_binding: candidate 0 strongest, then 1; kinase: only candidate 1; candidate 2: nothing.
    x[at(0, "tf_binding")] = 2;
    x[at(1, "tf_binding")] = 1;
    x[at(1, "kinase")] = 0.5;
    layerRanks(x, 3);
    expect(x[at(0, "layer_rank")]).toBe(1);
    expect(x[at(1, "layer_rank")]).toBe(0.5);
    expect(x[at(1, "layer_top")]).toBe(1);
    expect(x[at(2, "layer_rank")]).toBe(0);
    expect(x[at(2, "layer_top")]).toBe(0);
  });

  it("ranks the proteins only its layers name, on their layers' evidence, and says why each is there", () => {
    const ppi = parsePairs(Buffer.from("P\tx\nP\ty\nP\tz\nA\tP\n"), "huri", SYMBOLS);
    const kinases = parseGmt(Buffer.from("Q_substrates\t\tx\ty\tz\n"), "kea", "kinase", SYMBOLS);
    const layered = model.withLayers([ppi, kinases]);
    const m = toyModel({ shared: { ppi: 1, kinase: 1, propagated: 1, off_network: -0.5 } });
    const res = scoreTargetsV4({ ...input, model: layered, v4: m });
    // P, Q, and x, y and z: an interaction names both partners as proteins.
    expect(
      res.rows
        .map((r) => r.id)
        .slice()
        .sort(),
    ).toEqual([...model.sourceSymbols, "P", "Q", "x", "y", "z"].map((s) => `${s}|PROTEIN`).sort());
    expect(row(res, "P")).toMatchObject({
      candidate_source: "ppi",
      candidate_class: "outside_network",
      n_degs_significant: 0,
      pvalue_propagated: null,
      raw_influence_z: null,
    });
    expect(row(res, "P").pvalue_ppi).toBeLessThan(0.05);
    expect(row(res, "Q")).toMatchObject({ candidate_source: "kinase", candidate_class: "outside_network" });
    expect(row(res, "Q").pvalue_kinase).toBeLessThan(0.05);
    expect(row(res, "A")).toMatchObject({
      candidate_source: "network",
      candidate_class: "transcription_factor",
    });
    // Evidence moves them like any candidate: P's partners are DEGs, and its score is its layers'.
    expect(row(res, "P").score).toBeGreaterThan(0);
    const scores = res.rows.map((r) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    // The influence matrix holds the network's candidates, in table order, with v3's rows: the
    // others reach no DEG through the network.
    const networkRows = res.rows.filter((r) => r.candidate_source === "network").map((r) => r.id);
    expect(res.sourceInfluence.rowIds).toEqual(networkRows);
    const plain = scoreTargetsV3(input);
    const cols = res.sourceInfluence.columnIds.length;
    const rowOf = (m: typeof res.sourceInfluence, id: string) =>
      Array.from(m.data.subarray(m.rowIds.indexOf(id) * cols, (m.rowIds.indexOf(id) + 1) * cols));
    for (const id of networkRows)
      expect(rowOf(res.sourceInfluence, id)).toEqual(rowOf(plain.sourceInfluence, id));
    // Model v3 reads neither the PPI layer nor a protein beyond the network.
    expect(scoreTargetsV3({ ...input, model: layered }).rows).toEqual(scoreTargetsV3(input).rows);
  });

  it("ranks a protein beyond the network that no layer gives evidence to after the network's candidates, whatever its probability", () => {
    const ppi = parsePairs(Buffer.from("P\tx\nP\ty\nP\tz\nA\tP\n"), "huri", SYMBOLS);
    const layered = model.withLayers([ppi]);
    // A class prior that favours every protein beyond the network.
    const res = scoreTargetsV4({
      ...input,
      model: layered,
      v4: toyModel({ shared: { ppi: 1, off_network: 5 } }),
    });
    const ids = res.rows.map((r) => r.id.split("|")[0]);
    // P's partners are the DEGs: it has evidence and ranks by its score. x, y and z (each with
    // the one partner P, not a DEG) have none: they follow every network candidate.
    expect(row(res, "P").pvalue_ppi).toBeLessThan(0.05);
    expect(ids[0]).toBe("P");
    expect(ids.slice(-3).sort()).toEqual(["x", "y", "z"]);
    expect(row(res, "x").probability).toBeGreaterThan(
      Math.max(...model.sourceSymbols.map((s) => row(res, s).probability as number)),
    );
    expect(row(res, "x").in_prediction_set).toBe(true);
  });

  it("warns when the fit saw few development experiments of the job's type and list kind, and not otherwise", () => {
    expect(scoreTargetsV4({ ...input, v4: toyModel({}) }).warnings).toBeUndefined();
    const few = toyModel({ developmentCases: { ...casesPerGroup(100), "ligand/signed": 12 } });
    expect(scoreTargetsV4({ ...input, v4: few, perturbationType: "knockout" }).warnings).toBeUndefined();
    expect(scoreTargetsV4({ ...input, v4: few, perturbationType: "ligand" }).warnings).toEqual([
      {
        code: "few_development_experiments",
        message:
          "Model v4 was fitted on only 12 development experiments like this one (ligand, a DEG list signed up and down): its probabilities and 90 % set lean on other kinds of experiment and may be less sure than they say.",
      },
    ]);
    const none = toyModel({ developmentCases: { ...casesPerGroup(100), "unknown/unsigned": 0 } });
    const bare = scoreTargetsV4({ ...input, log2fc: undefined, v4: none });
    expect(bare.warnings?.[0]?.message).toMatch(
      /^Model v4 was fitted on no development experiments like this one \(no perturbation_type, a DEG list without signs\)/,
    );
  });

  it("writes every extra column it declares", () => {
    const res = scoreTargetsV4(input);
    expect(res.extraColumns).toEqual(V4_EXTRA_COLUMNS);
    for (const col of V4_EXTRA_COLUMNS) expect(res.rows[0]).toHaveProperty(col);
    expect(softmax(Float64Array.from([0, 0]), 1)).toEqual(Float64Array.from([0.5, 0.5]));
  });
});
