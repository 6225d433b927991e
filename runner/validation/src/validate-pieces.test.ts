/**
 * Pieces of `npm run validate`: reading a case directory (signed lists, gzipped tables), the
 * leakage rule, the method registry, mid-ranks, the ULM statistic of a signed list and the
 * per-target AUROC across experiments. Toy network of model.md §17.2 (RNAs x, y, z).
 */
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { toyModel } from "@causeway/runner/testing";
import { ScoringVersion } from "@causeway/runner/scoring";
import type { CaseRecord } from "./benchmark.ts";
import { scoreCase } from "./benchmark.ts";
import { prepareCase, readCaseDir } from "./case-dir.ts";
import { midRanks, type ValidationContext } from "./methods/method.ts";
import { loadMethods } from "./methods/registry.ts";
import { ulmStatistic } from "./methods/ulm.ts";
import { perTargetAuroc } from "./summary.ts";

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function caseDir(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "causeway-cases-"));
  dirs.push(root);
  await writeFile(join(root, "cases.tsv"), "id\tsource\nbare\tcollection_a\ntabled\tcollection_b\n");
  const write = async (id: string, files: Record<string, string | Buffer>): Promise<void> => {
    await mkdir(join(root, id));
    for (const [name, body] of Object.entries(files)) await writeFile(join(root, id, name), body);
  };
  await write("bare", {
    "case.json": JSON.stringify({
      id: "bare",
      expected_target: "B|PROTEIN",
      accepted_targets: ["B|PROTEIN"],
      split_group: "GSE1",
    }),
    "degs.json": JSON.stringify(["x", "B", "y", "unknown_gene"]),
    "degs_signed.json": JSON.stringify({ up: ["x", "B"], down: ["y"] }),
  });
  await write("tabled", {
    "case.json": JSON.stringify({
      id: "tabled",
      expected_target: "C|PROTEIN",
      accepted_targets: ["C|PROTEIN", "A|PROTEIN"],
      source: "from_case_json",
    }),
    "degs.json": JSON.stringify(["y", "z"]),
    "de_table.tsv.gz": gzipSync("gene\tlogFC\tt\nz\t2\t5\ny\t-1\t-3\nC\t-4\t-9\n"),
  });
  return root;
}

describe("a case directory", async () => {
  const model = await toyModel();
  const files = await readCaseDir(await caseDir());

  it("reads ids, sources (case.json first, then cases.tsv), split groups, signed lists and gzipped tables", () => {
    expect(files.map((f) => [f.id, f.source, f.splitGroup, f.expected])).toEqual([
      ["bare", "collection_a", "GSE1", "B"],
      ["tabled", "from_case_json", null, "C"],
    ]);
    expect(files[0]!.signed).toEqual({ up: ["x", "B"], down: ["y"] });
    expect(files[0]!.deTable).toBeNull();
    expect(files[1]!.deTable).toContain("z\t2\t5");
  });

  it("applies the leakage rule: the expected target's gene leaves the DEGs, the signed lists and the table's statistics", () => {
    const bare = prepareCase(model, files[0]!);
    expect(bare.degs).toEqual(["x", "y"]);
    expect(bare.signed).toEqual({ up: ["x"], down: ["y"] });
    expect([...bare.universe].sort()).toEqual(["x", "y", "z"]);
    expect(bare.stat).toBeNull();
    const tabled = prepareCase(model, files[1]!);
    expect(tabled.stat).toEqual(
      new Map([
        ["z", 5],
        ["y", -3],
      ]),
    );
    expect(tabled.log2fc.has("C")).toBe(false);
    expect(tabled.universe).toEqual(["z", "y", "C"]);
  });

  it("scores a case with every model version of the scoring registry and every baseline", async () => {
    const ctx: ValidationContext = {
      bundle: async () => model,
      primary: model,
      librariesDir: null,
      ppiFiles: [],
    };
    const methods = await loadMethods(ctx);
    expect(methods.map((m) => m.name)).toEqual([
      ...ScoringVersion.options,
      "out_degree",
      "direct_targets",
      "ulm",
      "raw_influence",
      "random",
    ]);
    const prepared = prepareCase(model, files[0]!);
    // The toy network is too small for target_id's n >= 5; score it as target_validation would.
    const input = prepared.scoringInput;
    prepared.scoringInput = (m, v) => ({ ...input(m, v), jobType: "target_validation" });
    const records = scoreCase(prepared, methods, ["B", "C", "not_a_candidate"]);
    for (const r of records) {
      expect(r.n_candidates).toBe(3);
      expect(r.q).toBe(r.rank! / 2);
      expect(Object.keys(r.q_targets).sort()).toEqual(["B", "C"]);
      expect(r.q_targets.B).toBeCloseTo(r.q!, 6);
      // The only accepted target is the expected one.
      expect(r.q_star).toBe(r.q);
    }
    // ULM needs at least five signed targets per candidate: none has them here, so all tie.
    expect(records.find((r) => r.method === "ulm")!.rank).toBe(1);
  });
});

describe("a case the product would refuse", async () => {
  const model = await toyModel();
  const files = await readCaseDir(await caseDir());

  it("gets model-version records without a rank (too_few_mapped_degs) while the baselines still rank it", async () => {
    const ctx: ValidationContext = {
      bundle: async () => model,
      primary: model,
      librariesDir: null,
      ppiFiles: [],
    };
    const errors: string[] = [];
    const records = scoreCase(
      prepareCase(model, files[0]!),
      await loadMethods(ctx),
      ["B"],
      undefined,
      (c, m, why) => errors.push(`${c.id}/${m}: ${why}`),
    );
    expect(errors).toEqual(ScoringVersion.options.map((v) => `bare/${v}: too_few_mapped_degs`));
    for (const v of ScoringVersion.options)
      expect(records.find((r) => r.method === v)).toMatchObject({ q: null, rank: null, n_candidates: 0 });
    expect(records.find((r) => r.method === "out_degree")!.q).not.toBeNull();
  });
});

describe("ranking helpers", () => {
  it("mid-ranks ties and puts −∞ and NaN last, tied", () => {
    expect(Array.from(midRanks([3, 1, 3, -Infinity, NaN, 2]))).toEqual([0.5, 3, 0.5, 4.5, 4.5, 2]);
  });

  it("turns up/down lists into +1/−1 over a universe of zeros; a gene listed both ways carries no sign", () => {
    const y = ulmStatistic({
      stat: null,
      signed: { up: ["a", "c"], down: ["b", "c"] },
      universe: ["a", "b", "c", "d"],
    });
    expect(y).toEqual(
      new Map([
        ["a", 1],
        ["b", -1],
        ["c", 0],
        ["d", 0],
      ]),
    );
  });
});

describe("per-target AUROC across experiments", () => {
  const rec = (id: string, q: Record<string, number>): CaseRecord => ({
    id,
    source: "s",
    method: "m",
    q: null,
    rank: null,
    n_candidates: 10,
    q_targets: q,
    q_star: null,
  });
  const truth = new Map([
    ["c1", { expected: "P", accepted: ["P"] }],
    ["c2", { expected: "P", accepted: ["P"] }],
    ["c3", { expected: "Q", accepted: ["Q", "P"] }],
    ["c4", { expected: "R", accepted: ["R"] }],
  ]);

  it("is 0.5 for a ranking that ignores the data (each target's q the same in every case)", () => {
    const same = { P: 0.1, Q: 0.2, R: 0.3 };
    const r = perTargetAuroc(
      ["c1", "c2", "c3", "c4"].map((id) => rec(id, same)),
      truth,
    );
    expect(r).toEqual({ auroc: 0.5, targets: 3 });
  });

  it("counts wins and half ties per target, leaves cases that accept the target out, and averages over targets", () => {
    const records = [
      rec("c1", { P: 0.1, Q: 0.5, R: 0.5 }),
      rec("c2", { P: 0.4, Q: 0.5, R: 0.5 }),
      // Accepts P: neither a positive nor a negative for P.
      rec("c3", { P: 0.0, Q: 0.2, R: 0.5 }),
      rec("c4", { P: 0.4, Q: 0.1, R: 0.9 }),
    ];
    // P: positives 0.1, 0.4 vs negative 0.4 → (1 + ½)/2 = 0.75. Q: 0.2 vs 0.5, 0.5, 0.1 → 2/3.
    // R: 0.9 vs 0.5, 0.5, 0.5 → 0.
    const r = perTargetAuroc(records, truth);
    expect(r.targets).toBe(3);
    expect(r.auroc).toBeCloseTo((0.75 + 2 / 3 + 0) / 3, 12);
  });
});

describe("the benchmark stays out of the product", () => {
  it("no shipped module of runner/src imports the validation workspace or test code", async () => {
    const { readdir, readFile } = await import("node:fs/promises");
    const { fileURLToPath } = await import("node:url");
    const root = fileURLToPath(new URL("../../src/", import.meta.url));
    const offenders: string[] = [];
    for (const name of await readdir(root, { recursive: true })) {
      if (!name.endsWith(".ts") || name.endsWith(".test.ts")) continue;
      const text = await readFile(join(root, name), "utf8");
      if (/from\s+["'](@causeway\/validation|[^"']*\/(validation|test)\/)/.test(text)) offenders.push(name);
    }
    expect(offenders).toEqual([]);
    expect(await readdir(root)).not.toContain("validation");
  });
});
