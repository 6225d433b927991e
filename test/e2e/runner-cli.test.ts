/**
 * The runner's command line end to end on the real Kang 2018 data: exactly the commands a
 * user types (`npm run --silent runner -- ...`), run as child processes.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { loadImage } from "@napi-rs/canvas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseTsvRecords } from "@causeway/runner/artifacts";
import { DEFAULT_NETWORK, KANG_DIR, REPO_ROOT } from "../shared-data.ts";

const run = promisify(execFile);
const SPLIT = join(KANG_DIR, "split_cd14mono");
const INTERFERON_GENES = [
  "IFIT1",
  "IFIT3",
  "MX1",
  "ISG15",
  "OAS1",
  "IFI6",
  "RSAD2",
  "IFITM3",
  "CXCL10",
  "IRF7",
];

async function runner(args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await run("npm", ["run", "--silent", "runner", "--", ...args], {
      cwd: REPO_ROOT,
      maxBuffer: 1 << 24,
    });
    return { code: 0, stderr };
  } catch (err) {
    const e = err as { code?: number; stderr?: string };
    return { code: e.code ?? -1, stderr: e.stderr ?? "" };
  }
}

/** `target-validation` on the Kang split pair and its DEG list. */
const validateKangSplit = (target: string, out: string): string[] => [
  "target-validation",
  "--network",
  DEFAULT_NETWORK,
  "--control",
  join(SPLIT, "control.h5ad"),
  "--perturbed",
  join(SPLIT, "perturbed.h5ad"),
  "--degs",
  join(SPLIT, "degs.json"),
  "--target",
  target,
  "--out",
  out,
];

let outRoot: string;
beforeAll(async () => {
  outRoot = await mkdtemp(join(tmpdir(), "causeway-cli-"));
});
afterAll(async () => {
  await rm(outRoot, { recursive: true, force: true });
});

describe("runner command line on the Kang data", () => {
  it("target-id on the merged CD14 monocyte file ranks the interferon axis near the top", async () => {
    const out = join(outRoot, "merged");
    const { code, stderr } = await runner([
      "target-id",
      "--network",
      DEFAULT_NETWORK,
      "--dataset",
      join(KANG_DIR, "kang2018_ifnb_cd14mono.h5ad"),
      "--out",
      out,
      // Model v1 by name (the default is v3): these are §16.5's reference figures.
      "--model-version",
      "v1",
    ]);
    expect(code, stderr).toBe(0);
    const files = await readdir(out);
    for (const name of [
      "run_metadata.json",
      "degs.tsv",
      "mapped_degs.json",
      "target_scores.tsv",
      "source_influence_matrix.npy",
      "source_influence_matrix.ids.json",
      "pseudobulk_counts.tsv.gz",
      "pseudobulk_samples.tsv",
    ]) {
      expect(files).toContain(name);
    }
    const rows = parseTsvRecords(await readFile(join(out, "target_scores.tsv"), "utf8"));
    expect(rows).toHaveLength(4265);
    const rankOf = (id: string) => Number(rows.find((r) => r.id === id)?.rank);
    // IRF9 (ISGF3) is a top-five candidate; STAT1 is in the top 5 % (model.md §16.5 reports 2 %).
    expect(rankOf("IRF9|PROTEIN")).toBeLessThan(5);
    expect(rankOf("STAT1|PROTEIN") / rows.length).toBeLessThan(0.05);
  });

  it("target-validation on the split pair explains STAT1 with paths into interferon genes", async () => {
    const out = join(outRoot, "split");
    const { code, stderr } = await runner([
      ...validateKangSplit("STAT1|PROTEIN", out),
      "--model-version",
      "v1",
    ]);
    expect(code, stderr).toBe(0);
    const validation = JSON.parse(await readFile(join(out, "target_validation.json"), "utf8")) as {
      rank: number;
      n_candidates: number;
    };
    expect(validation.n_candidates).toBe(4265);
    expect(validation.rank).toBe(87); // model.md §16.5, Kang case
    const paths = parseTsvRecords(await readFile(join(out, "causal_paths.tsv"), "utf8"));
    expect(paths.length).toBeGreaterThan(10);
    expect(paths.every((p) => p.path.startsWith("STAT1>"))).toBe(true);
    const reached = new Set(paths.map((p) => p.deg));
    expect(INTERFERON_GENES.filter((g) => reached.has(g)).length).toBeGreaterThanOrEqual(5);
    const png = await loadImage(await readFile(join(out, "causal_graph.png")));
    expect(png.width).toBeGreaterThan(300);
    expect(png.height).toBeGreaterThan(300);
  });

  it("target-validation --model-version v2 writes the same artifacts and records model v2", async () => {
    const out = join(outRoot, "split-v2");
    const { code, stderr } = await runner([
      ...validateKangSplit("STAT1|PROTEIN", out),
      "--model-version",
      "v2",
    ]);
    expect(code, stderr).toBe(0);
    expect((await readdir(out)).sort()).toEqual((await readdir(join(outRoot, "split"))).sort());
    const metadata = JSON.parse(await readFile(join(out, "run_metadata.json"), "utf8")) as {
      model_version: string;
      scoring: { version: string };
    };
    expect([metadata.model_version, metadata.scoring.version]).toEqual(["v2", "v2"]);
    const rows = parseTsvRecords(await readFile(join(out, "target_scores.tsv"), "utf8"));
    expect(rows).toHaveLength(4265);
    const stat1 = rows.find((r) => r.id === "STAT1|PROTEIN")!;
    expect(Number(stat1.rank) / rows.length).toBeLessThan(0.05);
    expect(stat1.pvalue_direct).not.toBe("NA");
  });

  it("refuses an unknown --model-version", async () => {
    const { code, stderr } = await runner([
      ...validateKangSplit("STAT1|PROTEIN", join(outRoot, "v9")),
      "--model-version",
      "v9",
    ]);
    expect(code).not.toBe(0);
    expect(stderr).toContain("v9");
  });

  it("fails with the failure code and a non-zero exit for a target the network lacks", async () => {
    const { code, stderr } = await runner(
      validateKangSplit("NOTAGENE1|PROTEIN", join(outRoot, "bad-target")),
    );
    expect(code).toBe(3);
    expect(stderr).toContain("target_not_in_interactome");
  });

  it("refuses a merged file with several cell types (multiple_cell_types)", async () => {
    const { code, stderr } = await runner([
      "target-id",
      "--network",
      DEFAULT_NETWORK,
      "--dataset",
      join(KANG_DIR, "kang2018_ifnb_pbmc.h5ad"),
      "--out",
      join(outRoot, "pbmc"),
    ]);
    expect(code).toBe(3);
    expect(stderr).toContain("multiple_cell_types");
  });

  it("reads a DEG list written one gene per line with R's quoting and header, as the JSON array", async () => {
    const genes = JSON.parse(await readFile(join(SPLIT, "degs.json"), "utf8")) as string[];
    const plain = join(outRoot, "degs.csv");
    await writeFile(plain, ['"x"', ...genes.map((g) => `"${g}"`)].join("\r\n"));
    const args = validateKangSplit("STAT1|PROTEIN", join(outRoot, "plain"));
    args[args.indexOf("--degs") + 1] = plain;
    const { code, stderr } = await runner([...args, "--model-version", "v1"]);
    expect(code, stderr).toBe(0);
    const validation = JSON.parse(
      await readFile(join(outRoot, "plain", "target_validation.json"), "utf8"),
    ) as {
      rank: number;
    };
    expect(validation.rank).toBe(87); // the JSON list's rank (model.md §16.5)
  });

  it("names a missing input file and exits 2 before building anything", async () => {
    const args = validateKangSplit("STAT1|PROTEIN", join(outRoot, "missing"));
    args[args.indexOf("--degs") + 1] = join(outRoot, "no-such-degs.json");
    const { code, stderr } = await runner(args);
    expect(code).toBe(2);
    expect(stderr).toContain("--degs");
    expect(stderr).toContain("no such file");
    expect(stderr).not.toMatch(/\bat .*\.ts:\d+/); // no stack trace
  });
});
