/**
 * The embedded service end to end, as a newcomer runs it: `node api/src/main.ts` (what
 * `npm start` runs) with a model configured, accounts made with the admin CLI, the real Kang
 * 2018 data uploaded over HTTP, jobs run by the local executor in child processes, and every
 * route read back. Nothing is faked.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { loadImage } from "@napi-rs/canvas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_NETWORK, HGNC_DIR, HURI_PAIRS, KANG_DIR, REPO_ROOT, sharedData } from "../shared-data.ts";
import { waitFor } from "../harness/proc.ts";
import { NODE, spawnServer, type ServerProcess } from "./embedded-server.ts";

const exec = promisify(execFile);
const SPLIT = join(KANG_DIR, "split_cd14mono");

let server: ServerProcess;
let dataDir: string;
let base: string;

const env = (): NodeJS.ProcessEnv => ({
  ...process.env,
  CAUSEWAY_DATA_DIR: dataDir,
  CAUSEWAY_MODEL: DEFAULT_NETWORK,
  CAUSEWAY_HGNC: HGNC_DIR,
  // Model v3's and v4's evidence layers: the operator supplies the libraries and the PPI file (never bundled).
  CAUSEWAY_LIBRARIES: sharedData("libraries"),
  CAUSEWAY_PPI: HURI_PAIRS,
  LOG_LEVEL: "warn",
  // Polling from one address would exhaust the spec's 30/min edge budget; that limit has its own tests.
  CAUSEWAY_EDGE_LIMIT: "100000",
});

async function admin(...args: string[]): Promise<string> {
  const { stdout } = await exec(NODE, ["api/src/admin/cli.ts", ...args], { cwd: REPO_ROOT, env: env() });
  return stdout;
}

async function newAccount(tier: "internal" | "external"): Promise<string> {
  const out = await admin("accounts", "create", "--name", `e2e-${tier}`, "--tier", tier, "--json");
  const last = out.trim().split("\n").at(-1)!;
  return (JSON.parse(last) as { api_key: string }).api_key;
}

async function api(key: string, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(base + path, { ...init, headers: { "X-API-Key": key, ...(init.headers ?? {}) } });
}

async function json<T>(res: Response): Promise<T> {
  expect(res.headers.get("content-type")).toContain("application/json");
  return (await res.json()) as T;
}

interface Status {
  prediction_id: string;
  status: string;
  error_code?: string | null;
  error_message?: string | null;
  processing_step?: string | null;
  progress_pct?: number | null;
  [k: string]: unknown;
}

function waitDone(key: string, id: string, path = `/v1/predictions/${id}`): Promise<Status> {
  let last: Status | undefined;
  return waitFor(
    `${path} to finish`,
    async () => {
      last = await json<Status>(await api(key, path));
      return last.status === "completed" || last.status === "failed" ? last : undefined;
    },
    { timeoutMs: 240_000, intervalMs: 1000 },
  ).catch((err: unknown) => {
    throw new Error(`${String(err)}; last ${JSON.stringify(last)}\n${server.log()}`);
  });
}

/** The run_metadata.json of a finished internal-tier prediction, through its download link. */
async function runMetadata(done: Status): Promise<unknown> {
  const artifacts = done.artifacts as { name: string; url: string }[];
  const link = artifacts.find((a) => a.name.endsWith("run_metadata.json"));
  expect(link, JSON.stringify(artifacts.map((a) => a.name))).toBeDefined();
  return (await fetch(link!.url.startsWith("/") ? base + link!.url : link!.url)).json();
}

async function file(path: string): Promise<Blob> {
  return new Blob([await readFile(path)]);
}

/** The Kang split pair as a target_validation form (the upload every split test makes). */
async function splitValidationForm(target: string): Promise<FormData> {
  const form = new FormData();
  form.set("dataset_control", await file(join(SPLIT, "control.h5ad")), "control.h5ad");
  form.set("dataset_pert", await file(join(SPLIT, "perturbed.h5ad")), "perturbed.h5ad");
  form.set("degs", await readFile(join(SPLIT, "degs.json"), "utf8"));
  form.set("job_type", "target_validation");
  form.set("target", target);
  return form;
}

/** Starts the server on the data directory (again, after a crash: same database and objects). */
async function startServer(extraEnv: NodeJS.ProcessEnv = {}): Promise<void> {
  // Below the 300 s hook timeout: a slow start fails with the server's output.
  server = await spawnServer({ ...env(), ...extraEnv }, 280_000);
  base = server.base;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "causeway-embedded-"));
  await startServer();
}, 300_000);

afterAll(async () => {
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe("embedded service on the Kang 2018 data", () => {
  it("target_validation on the split pair completes and every derived route answers from real results", async () => {
    const key = await newAccount("external");
    const form = await splitValidationForm("STAT1|PROTEIN");
    // Model v1 by name: its §16.5 ranks stay reproducible now that v3 is the default.
    form.set("model_version", "v1");
    const created = await api(key, "/v1/predictions", { method: "POST", body: form });
    expect(created.status).toBe(202);
    const { prediction_id: id, status } = await json<{ prediction_id: string; status: string }>(created);
    expect(status).toBe("pending");

    const done = await waitDone(key, id);
    expect(done.status, JSON.stringify(done)).toBe("completed");
    expect(done.processing_step).toBe("results_uploaded");
    expect(done.progress_pct).toBe(100);
    expect(done.job_type).toBe("target_validation");
    expect(done.target).toBe("STAT1|PROTEIN");
    expect(done.dataset_summary).toMatchObject({ n_degs: 433 });
    // External accounts: no artifacts, no error_detail, the score row, public result columns only.
    expect(done.artifacts ?? null).toBeNull();
    expect(done).not.toHaveProperty("error_detail");
    expect(done.target_validation_score).toMatchObject({ id: "STAT1|PROTEIN" });
    const results = done.results as Record<string, unknown>[];
    expect(results.length).toBeGreaterThan(100);
    for (const hidden of ["pvalue", "z_score", "protein_expressed", "node_type"])
      expect(results[0]).not.toHaveProperty(hidden);
    const stat1 = results.find((r) => r.id === "STAT1|PROTEIN")!;
    expect(stat1.rank).toBe(87); // model.md §16.5

    const mapped = await json<{ degs: string[] }>(await api(key, `/v1/predictions/${id}/mapped-degs`));
    expect(mapped.degs).toContain("IFIT1");
    const impacted = await json<{ target: string; degs: string[] }>(
      await api(key, `/v1/predictions/${id}/degs-impacted`),
    );
    expect(impacted.degs.length).toBeGreaterThan(10);
    const paths = await json<{ degs: string[]; degs_total: number; paths: { path: string; deg: string }[] }>(
      await api(key, `/v1/predictions/${id}/causal-paths`),
    );
    expect(paths.degs_total).toBe(impacted.degs.length);
    expect(paths.paths.every((p) => p.path.startsWith("STAT1>"))).toBe(true);
    expect(paths.paths.some((p) => ["IFIT1", "IFIT3", "MX1", "ISG15", "OAS1"].includes(p.deg))).toBe(true);
    const inter = await json<{ proteins: string[]; n_paths_used: number }>(
      await api(key, `/v1/predictions/${id}/intermediary-proteins?top_n_degs=20`),
    );
    expect(inter.n_paths_used).toBeGreaterThan(0);
    expect(inter.proteins).not.toContain("STAT1");

    const graph = await api(key, `/v1/predictions/${id}/causal-graph?top_n_degs=10&dpi=72`);
    expect(graph.status).toBe(200);
    expect(graph.headers.get("content-type")).toBe("image/png");
    const image = await loadImage(Buffer.from(await graph.arrayBuffer()));
    expect(image.width).toBeGreaterThan(200);

    const quota = await json<Record<string, number>>(await api(key, "/v1/usage/predictions/quota"));
    expect(quota).toMatchObject({
      total_quota_requests: 100,
      consumed_quota_requests: 1,
      remaining_quota_requests: 99,
    });
  });

  it("target_id on the merged file, then a standalone causal analysis of STAT1 with artifacts to download", async () => {
    const key = await newAccount("internal");
    const form = new FormData();
    form.set("dataset", await file(join(KANG_DIR, "kang2018_ifnb_cd14mono.h5ad")), "cd14mono.h5ad");
    const created = await api(key, "/v1/predictions", { method: "POST", body: form });
    expect(created.status).toBe(202);
    const { prediction_id: id } = await json<{ prediction_id: string }>(created);
    const done = await waitDone(key, id);
    expect(done.status, JSON.stringify(done)).toBe("completed");
    expect(done.dataset_summary).toMatchObject({
      cell_type: "CD14+ Monocytes",
      n_perturbations: 1,
      n_cells: 400,
    });
    const results = done.results as Record<string, unknown>[];
    expect(results[0]).toHaveProperty("pvalue");
    const matrix = done.source_influence_matrix as {
      row_ids: string[];
      column_ids: string[];
      data: (number | null)[][];
    };
    expect(matrix.row_ids[0]).toBe(results[0]!.id);
    expect(matrix.data[0]).toHaveLength(matrix.column_ids.length);
    const artifacts = done.artifacts as { name: string; url: string }[];
    const scores = artifacts.find((a) => a.name === "target_scores.tsv")!;
    const download = await fetch(scores.url);
    expect(download.status).toBe(200);
    expect((await download.text()).split("\n")[0]).toMatch(/^id\tnode_type\tscore\trank/);
    for (const a of artifacts) expect(a.url).not.toContain(dataDir);

    const ca = await api(key, "/v1/causal-analysis", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ prediction_id: id, target: "STAT1|PROTEIN" }),
    });
    expect(ca.status).toBe(202);
    const { causal_analysis_id: caId } = await json<{ causal_analysis_id: string }>(ca);
    const caDone = await waitDone(key, caId, `/v1/causal-analysis/${caId}`);
    expect(caDone.status, JSON.stringify(caDone)).toBe("completed");
    const png = Buffer.from((caDone.results as { image_base64: string }).image_base64, "base64");
    expect((await loadImage(png)).width).toBeGreaterThan(200);
    const list = await json<{ items: { causal_analysis_id: string }[] }>(
      await api(key, `/v1/causal-analysis?prediction_id=${id}`),
    );
    expect(list.items.map((i) => i.causal_analysis_id)).toEqual([caId]);
    const graph = await api(key, `/v1/causal-analysis/${caId}/graph`);
    expect(graph.status).toBe(200);
    expect(Buffer.from(await graph.arrayBuffer()).subarray(0, 8)).toEqual(png.subarray(0, 8));
  });

  it("holds model versions v4 (the default), v3, v1 and v2: model_version selects one end to end, an unknown one is refused, the admin picks the default", async () => {
    const listed = JSON.parse((await admin("models", "list", "--json")).trim().split("\n").at(-1)!) as {
      version: string;
      scoring: string;
      default: boolean;
    }[];
    expect(listed.map((m) => [m.version, m.scoring, m.default])).toEqual([
      ["v4", "v4", true],
      ["v3", "v3", false],
      ["v1", "v1", false],
      ["v2", "v2", false],
    ]);

    const key = await newAccount("internal");
    const submit = async (modelVersion: string | null): Promise<Response> => {
      const form = await splitValidationForm("STAT1|PROTEIN");
      if (modelVersion !== null) form.set("model_version", modelVersion);
      return api(key, "/v1/predictions", { method: "POST", body: form });
    };

    const unknown = await submit("v9");
    expect(unknown.status).toBe(422);
    expect(JSON.stringify(await unknown.json())).toContain("model_version");

    const created = await submit("v2");
    expect(created.status).toBe(202);
    const { prediction_id: id } = await json<{ prediction_id: string }>(created);
    const done = await waitDone(key, id);
    expect(done.status, JSON.stringify(done)).toBe("completed");
    // The status body has no model field (service-spec); every result records it in run_metadata.json.
    expect(await runMetadata(done)).toMatchObject({ model_version: "v2", scoring: { version: "v2" } });
    const results = done.results as Record<string, unknown>[];
    expect(results.find((r) => r.id === "STAT1|PROTEIN")).toBeDefined();
    for (const route of [
      "mapped-degs",
      "degs-impacted",
      "causal-paths",
      "intermediary-proteins?top_n_degs=20",
    ])
      expect((await api(key, `/v1/predictions/${id}/${route}`)).status, route).toBe(200);
    const graph = await api(key, `/v1/predictions/${id}/causal-graph?top_n_degs=10&dpi=72`);
    expect(graph.headers.get("content-type")).toBe("image/png");

    // target_id under v2 on the merged CD14 file: STAT1, the IFN-β driver, near the top.
    const merged = new FormData();
    merged.set("dataset", await file(join(KANG_DIR, "kang2018_ifnb_cd14mono.h5ad")), "cd14mono.h5ad");
    merged.set("model_version", "v2");
    const byId = await json<{ prediction_id: string }>(
      await api(key, "/v1/predictions", { method: "POST", body: merged }),
    );
    const idDone = await waitDone(key, byId.prediction_id);
    expect(idDone.status, JSON.stringify(idDone)).toBe("completed");
    expect(await runMetadata(idDone)).toMatchObject({ model_version: "v2", scoring: { version: "v2" } });
    const stat1 = (idDone.results as { id: string; rank_percentage: number }[]).find(
      (r) => r.id === "STAT1|PROTEIN",
    );
    expect(stat1?.rank_percentage).toBeLessThanOrEqual(0.05);
    // The derived routes are target_validation's (above); a target_id result leads to a causal analysis.
    const ca = await api(key, "/v1/causal-analysis", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ prediction_id: byId.prediction_id, target: "STAT1|PROTEIN" }),
    });
    expect(ca.status).toBe(202);
    const { causal_analysis_id: caId } = await json<{ causal_analysis_id: string }>(ca);
    expect((await waitDone(key, caId, `/v1/causal-analysis/${caId}`)).status).toBe("completed");

    // The default model (v3, with the libraries as evidence layers) on the same file: the
    // IFN-β pathway's STAT1, STAT2 and IRF9 in the top 1 %, although STAT2's and IRF9's genes
    // are not in the file (absence from a file is not evidence of absence).
    const byDefaultMerged = new FormData();
    byDefaultMerged.set(
      "dataset",
      await file(join(KANG_DIR, "kang2018_ifnb_cd14mono.h5ad")),
      "cd14mono.h5ad",
    );
    const defaultDone = await waitDone(
      key,
      (
        await json<{ prediction_id: string }>(
          await api(key, "/v1/predictions", { method: "POST", body: byDefaultMerged }),
        )
      ).prediction_id,
    );
    expect(defaultDone.status, JSON.stringify(defaultDone)).toBe("completed");
    // v4 stores the PPI layer too, and ranks the proteins beyond the network it names.
    const v4Metadata = (await runMetadata(defaultDone)) as {
      model_version: string;
      scoring: { version: string; layers: { kind: string }[]; candidates: { beyond_network: number } };
    };
    expect(v4Metadata).toMatchObject({ model_version: "v4", scoring: { version: "v4" } });
    expect(v4Metadata.scoring.layers.map((l) => l.kind)).toContain("ppi");
    expect(v4Metadata.scoring.candidates.beyond_network).toBeGreaterThan(5000);
    const defaultRows = defaultDone.results as { id: string; rank_percentage: number }[];
    for (const s of ["STAT1", "STAT2", "IRF9"])
      expect(defaultRows.find((r) => r.id === `${s}|PROTEIN`)?.rank_percentage, s).toBeLessThanOrEqual(0.01);

    await admin("models", "set-default", "v2");
    try {
      const byDefault = await json<{ prediction_id: string }>(await submit(null));
      expect(await runMetadata(await waitDone(key, byDefault.prediction_id))).toMatchObject({
        model_version: "v2",
      });
    } finally {
      await admin("models", "set-default", "v4");
    }
    await expect(admin("models", "set-default", "v9")).rejects.toThrow(/no model version v9/);
  });

  it("a failing job reaches failed with its code, and a non-billable failure gives the quota back", async () => {
    const key = await newAccount("external");
    const form = await splitValidationForm("NOTAGENE1|PROTEIN");
    const { prediction_id: id } = await json<{ prediction_id: string }>(
      await api(key, "/v1/predictions", { method: "POST", body: form }),
    );
    const done = await waitDone(key, id);
    expect(done.status).toBe("failed");
    expect(done.error_code).toBe("target_not_in_interactome");
    expect(done.error_message).toMatch(/not a protein of the interactome/);
    const quota = await json<Record<string, number>>(await api(key, "/v1/usage/predictions/quota"));
    expect(quota.consumed_quota_requests).toBe(0);
  });

  it("jobs left queued or running by a crashed process run again at the next start, paid for once", async () => {
    const keys = [await newAccount("external"), await newAccount("internal")];
    const ids: string[] = [];
    for (const key of keys) {
      const form = await splitValidationForm("STAT1|PROTEIN");
      const res = await api(key, "/v1/predictions", { method: "POST", body: form });
      expect(res.status).toBe(202);
      ids.push((await json<{ prediction_id: string }>(res)).prediction_id);
    }
    // The process dies without a chance to clean up; its warm runners go with it.
    await server.stop("SIGKILL");

    await startServer({ LOG_LEVEL: "info" });
    for (const [i, id] of ids.entries()) {
      const done = await waitDone(keys[i]!, id);
      expect(done.status, JSON.stringify(done)).toBe("completed");
      const quota = await json<Record<string, number>>(await api(keys[i]!, "/v1/usage/predictions/quota"));
      expect(quota.consumed_quota_requests).toBe(1);
    }
    // Both ran again after the restart (neither had finished when the process was killed).
    for (const id of ids) expect(server.log()).toMatch(new RegExp(`"job_id":"${id}"[^\n]*dispatched again`));
  });
});
