/**
 * Data as it comes, end to end on the embedded server (`node api/src/main.ts`, jobs run by the
 * local executor): the Kang 2018 merged file (five cell types) with its obs columns renamed the
 * way real files name them, analysed for one cell type by naming the columns, and failing with
 * the candidate columns named when they are not; the same data with mouse-style symbols and
 * species=mouse; a DESeq2 table sent as the DEG list (422); a DEG list of Ensembl ids; warnings
 * on the status record and in `causeway status`; `causeway prepare` turning the merged file into
 * an accepted CD14+ monocyte pair in one command, and subsampling under a lower cap.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeKangRenamed } from "../../runner/test/fixtures/anndata/kang-renamed.ts";
import { waitFor } from "../harness/proc.ts";
import { HGNC_DIR, KANG_DIR } from "../shared-data.ts";
import { runCli, cliEnv, type CliRun } from "./causeway-cli.ts";
import { startEmbeddedServer, type EmbeddedServer } from "./embedded-server.ts";

const SPLIT = join(KANG_DIR, "split_cd14mono");
const FIELDS = {
  condition_column: "arm",
  control_level: "unstim",
  sample_column: "individual",
  cell_type_column: "annot",
  cell_type: "CD14+ Monocytes",
};

let server: EmbeddedServer;
let key: string;
let work: string;
let renamed: string;
let mouse: string;

interface Status {
  prediction_id: string;
  status: string;
  error_code?: string | null;
  error_message?: string | null;
  dataset_summary?: { cell_type?: string | null } | null;
  results?: { id: string; rank_percentage?: number | null }[] | null;
  warnings?: { code: string; message: string }[];
}

async function post(fields: Record<string, string>, files: Record<string, string>): Promise<Response> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  for (const [k, path] of Object.entries(files)) form.set(k, new Blob([await readFile(path)]), `${k}.h5ad`);
  return fetch(`${server.base}/v1/predictions`, {
    method: "POST",
    headers: { "x-api-key": key },
    body: form,
  });
}

async function submitted(res: Response): Promise<string> {
  const body = (await res.json()) as { prediction_id?: string };
  expect(res.status, JSON.stringify(body)).toBe(202);
  return body.prediction_id!;
}

function finished(id: string): Promise<Status> {
  return waitFor(
    `prediction ${id} to finish`,
    async () => {
      const s = (await (
        await fetch(`${server.base}/v1/predictions/${id}`, { headers: { "x-api-key": key } })
      ).json()) as Status;
      return s.status === "completed" || s.status === "failed" ? s : undefined;
    },
    { timeoutMs: 280_000, intervalMs: 1000 },
  );
}

const stat1Percent = (s: Status): number =>
  s.results?.find((r) => r.id === "STAT1|PROTEIN")?.rank_percentage ?? Number.POSITIVE_INFINITY;

const causeway = (args: string[]): Promise<CliRun> => runCli(args, cliEnv(server.base, key, work));

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "causeway-data-e2e-"));
  renamed = join(work, "kang-renamed.h5ad");
  mouse = join(work, "kang-mouse.h5ad");
  await writeKangRenamed(join(KANG_DIR, "kang2018_ifnb_pbmc.h5ad"), renamed);
  await writeKangRenamed(join(KANG_DIR, "kang2018_ifnb_pbmc.h5ad"), mouse, { mouse: { hgncDir: HGNC_DIR } });
  server = await startEmbeddedServer({
    CAUSEWAY_EDGE_LIMIT: "100000",
    CAUSEWAY_INFLIGHT_LIMIT: "100",
    CAUSEWAY_MODEL_VERSIONS: "v1",
  });
  key = await server.newAccount("internal", "data-e2e");
}, 300_000);

afterAll(async () => {
  await server?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe("a merged file with its own column names", () => {
  let human: Status;

  it("completes for one cell type with the column fields", async () => {
    const id = await submitted(await post({ job_type: "target_id", ...FIELDS }, { dataset: renamed }));
    human = await finished(id);
    expect(human.status, JSON.stringify(human).slice(0, 2000) + server.log()).toBe("completed");
    expect(human.dataset_summary?.cell_type).toBe("CD14+ Monocytes");
    expect(stat1Percent(human)).toBeLessThanOrEqual(0.05);
  });

  it("fails without them, naming the candidate columns", async () => {
    const failed = await finished(
      await submitted(await post({ job_type: "target_id" }, { dataset: renamed })),
    );
    expect(failed.status).toBe("failed");
    expect(failed.error_code).toBe("missing_condition_column");
    for (const column of ["`arm` has 2 values", "`individual`", "`annot`"])
      expect(failed.error_message).toContain(column);
    expect(failed.error_message).toContain("set condition_column=arm");
  });

  it("with mouse-style symbols and species=mouse puts STAT1 in the top 5 % as the human run does", async () => {
    const id = await submitted(
      await post({ job_type: "target_id", ...FIELDS, species: "mouse" }, { dataset: mouse }),
    );
    const s = await finished(id);
    expect(s.status, s.error_message ?? "").toBe("completed");
    expect(stat1Percent(s)).toBeLessThanOrEqual(0.05);
    expect(stat1Percent(human)).toBeLessThanOrEqual(0.05);
  });

  it("shows warnings on the status record and in `causeway status`", async () => {
    // Two samples per arm leave 2 residual degrees of freedom: the DE's low_residual_df warning.
    expect(human.warnings?.map((w) => w.code)).toContain("low_residual_df");
    const run = await causeway(["status", human.prediction_id]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("warning    low_residual_df:");
  });
});

describe("DEG lists", () => {
  it("refuses a DESeq2 table sent as degs, naming what it saw", async () => {
    const edgeR = (await readFile(join(SPLIT, "pseudobulk_edgeR_results.tsv"), "utf8")).trim().split("\n");
    const deseq = [
      "baseMean\tlog2FoldChange\tlfcSE\tstat\tpvalue\tpadj",
      ...edgeR.slice(1, 200).map((l) => {
        const [gene, logFC, logCPM, , p, fdr] = l.split("\t");
        return [gene, logCPM, logFC, "0.3", "5.1", p, fdr].join("\t");
      }),
    ].join("\n");
    // As a naive client sends it: the file split on whitespace.
    const entries = deseq.split(/\s+/);
    const res = await post(
      { job_type: "target_id", degs: JSON.stringify(entries) },
      { dataset_control: join(SPLIT, "control.h5ad"), dataset_pert: join(SPLIT, "perturbed.h5ad") },
    );
    expect(res.status).toBe(422);
    const item = ((await res.json()) as { detail: { loc: string[]; msg: string; type: string }[] })
      .detail[0]!;
    expect(item.loc).toEqual(["body", "degs"]);
    expect(item.type).toBe("deg_list_is_table");
    expect(item.msg).toContain('"baseMean"');
  });

  it("completes with Ensembl ids, answering how many were recognised", async () => {
    const symbols = JSON.parse(await readFile(join(SPLIT, "degs.json"), "utf8")) as string[];
    const table = gunzipSync(await readFile(join(HGNC_DIR, "ensembl_to_symbol.tsv.gz"))).toString("utf8");
    const bySymbol = new Map<string, string>();
    for (const line of table.split("\n").slice(1)) {
      const [ensembl, symbol] = line.split("\t");
      if (ensembl && symbol && !bySymbol.has(symbol)) bySymbol.set(symbol, ensembl);
    }
    const ids = symbols.map((s) => bySymbol.get(s)).filter((e): e is string => e !== undefined);
    expect(ids.length).toBeGreaterThan(300);
    const res = await post(
      { job_type: "target_id", degs: JSON.stringify(ids) },
      { dataset_control: join(SPLIT, "control.h5ad"), dataset_pert: join(SPLIT, "perturbed.h5ad") },
    );
    const body = (await res.clone().json()) as { n_degs?: number; n_degs_recognised?: number };
    expect(body.n_degs).toBe(ids.length);
    expect(body.n_degs_recognised).toBeGreaterThan(ids.length * 0.9);
    const s = await finished(await submitted(res));
    expect(s.status, s.error_message ?? "").toBe("completed");
  });
});

describe("causeway prepare", () => {
  const prepareArgs = (out: string, ...more: string[]) => [
    "prepare",
    renamed,
    "--condition-column",
    "arm",
    "--control-level",
    "unstim",
    "--sample-column",
    "individual",
    "--cell-type-column",
    "annot",
    "--cell-type",
    "CD14+ Monocytes",
    "--out",
    out,
    ...more,
  ];

  it("turns the merged file into an accepted CD14+ monocyte pair in one command", async () => {
    const out = join(work, "pair");
    const run = await causeway(prepareArgs(out));
    expect(run.code, run.stderr).toBe(0);
    const res = await post(
      { job_type: "target_id", degs: await readFile(join(SPLIT, "degs.json"), "utf8") },
      { dataset_control: join(out, "control.h5ad"), dataset_pert: join(out, "perturbed.h5ad") },
    );
    await submitted(res);
    const merged = await causeway([
      "submit",
      "--dataset",
      join(out, "dataset.h5ad"),
      "--job-type",
      "target_id",
      "--json",
    ]);
    expect(merged.code, merged.stderr).toBe(0);
  });

  it("subsamples each arm under a lower cap, keeping every sample", async () => {
    const run = await causeway([...prepareArgs(join(work, "small"), "--max-obs", "120", "--json")]);
    expect(run.code, run.stderr).toBe(0);
    const written = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as {
      arms: { level: string; nBefore: number; nAfter: number; samples: Record<string, number> }[];
    };
    expect(written.arms.map((a) => [a.level, a.nBefore, a.nAfter])).toEqual([
      ["unstim", 200, 120],
      ["IFNb", 200, 120],
    ]);
    for (const a of written.arms) expect(Object.keys(a.samples).sort()).toEqual(["101", "107"]);
    // Submitted and waited for: the compact record, with the subsampling among its warnings.
    const waited = await causeway([
      "submit",
      "--dataset",
      join(work, "small", "dataset.h5ad"),
      "--job-type",
      "target_id",
      "--wait",
      "--json",
    ]);
    expect(waited.code, waited.stderr).toBe(0);
    const final = JSON.parse(waited.stdout.trim().split("\n").at(-1)!) as Status;
    expect(final.status).toBe("completed");
    expect(final).not.toHaveProperty("results");
    expect(final.warnings?.map((w) => w.code)).toContain("subsampled");
  });

  it("inspects the file: columns, raw counts, observations per arm", async () => {
    const run = await causeway(["prepare", renamed]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("counts: X holds raw counts");
    expect(run.stdout).toMatch(/arm\s+2 values/);
    expect(run.stderr).toContain("no condition column was found by name");
  });
});
