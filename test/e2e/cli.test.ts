/**
 * The `causeway` command-line client end to end, as the README shows it: `npx causeway` against
 * the embedded server, the Kang 2018 split pair submitted with --wait --json, every result
 * downloaded with checksums, the graph, paths, quota, list, a profile file, and one-line errors.
 */
import { createHash } from "node:crypto";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadImage } from "@napi-rs/canvas";
import { validate as validateXml } from "fast-xml-parser";
import { parseCausalGraphInputs } from "@causeway/runner/graph/inputs";
import { selectGraph } from "@causeway/runner/graph/select";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KANG_DIR } from "../shared-data.ts";
import { runCli, type CliRun } from "./causeway-cli.ts";
import { startEmbeddedServer, type EmbeddedServer } from "./embedded-server.ts";

const SPLIT = join(KANG_DIR, "split_cd14mono");
let server: EmbeddedServer;
let work: string;
let env: NodeJS.ProcessEnv;

type Run = CliRun;

/** Runs the CLI: through npx (the installed bin) or straight with Node 24. */
const causeway = (args: string[], options: { npx?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<Run> =>
  runCli(args, options.env ?? env, { npx: options.npx });

/** `submit` of the Kang split pair for target validation of STAT1, as the README writes it. */
const splitSubmit = (degs: string) => [
  "submit",
  "--control",
  join(SPLIT, "control.h5ad"),
  "--perturbed",
  join(SPLIT, "perturbed.h5ad"),
  "--degs",
  degs,
  "--job-type",
  "target_validation",
  "--target",
  "STAT1|PROTEIN",
];
const lastJson = <T>(run: Run): T => JSON.parse(run.stdout.trimEnd().split("\n").at(-1)!) as T;
const sha256 = (buf: Buffer) => createHash("sha256").update(buf).digest("hex");

beforeAll(async () => {
  server = await startEmbeddedServer({ CAUSEWAY_EDGE_LIMIT: "100000" });
  work = await mkdtemp(join(tmpdir(), "causeway-cli-e2e-"));
  const key = await server.newAccount("internal", "cli-e2e");
  env = {
    PATH: process.env.PATH,
    HOME: work,
    CAUSEWAY_URL: server.base,
    CAUSEWAY_API_KEY: key,
    CAUSEWAY_CONFIG: join(work, "no-config.json"),
  };
  // Above the embedded server's own start deadline, which then reports the server's output.
}, 600_000);

afterAll(async () => {
  await server?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe("causeway CLI on the Kang 2018 data", () => {
  let id = "";

  it("submits the split pair with --wait --json: progress on stderr, the final record as the last stdout line", async () => {
    const run = await causeway(
      [...splitSubmit(join(SPLIT, "degs.json")), "--label", "kang split", "--wait", "--json"],
      { npx: true },
    );
    expect(run.code, run.stderr + server.log()).toBe(0);
    const final = lastJson<{
      prediction_id: string;
      status: string;
      target: string;
      label: string;
      progress_pct: number;
    }>(run);
    expect(final).toMatchObject({
      status: "completed",
      target: "STAT1|PROTEIN",
      label: "kang split",
      progress_pct: 100,
    });
    expect(run.stderr).toMatch(/\[#{30}\] 100% completed/);
    expect(run.stderr).toContain(`prediction ${final.prediction_id} pending`);
    id = final.prediction_id;
  });

  it("downloads every result into a folder with checksums that match the files", async () => {
    const out = join(work, "results");
    const run = await causeway(["results", id, "--out", out], { npx: true });
    expect(run.code, run.stderr).toBe(0);
    const status = JSON.parse(await readFile(join(out, "status.json"), "utf8")) as {
      artifacts: { name: string }[];
    };
    expect(status.artifacts.length).toBeGreaterThan(3);
    const files = await readdir(out, { recursive: true });
    for (const a of status.artifacts) expect(files).toContain(join("artifacts", a.name));
    for (const f of ["mapped_degs.json", "degs_impacted.json", "causal_paths.json", "SHA256SUMS"])
      expect(files).toContain(f);
    const sums = (await readFile(join(out, "SHA256SUMS"), "utf8")).trim().split("\n");
    expect(sums).toHaveLength(status.artifacts.length + 4);
    for (const line of sums) {
      const [hash, name] = line.split("  ");
      expect(sha256(await readFile(join(out, name!))), name).toBe(hash);
    }
    expect(run.stdout).toContain("status.json");
  });

  it("keeps a provenance record whose checksums match the uploaded files and the downloads", async () => {
    const out = join(work, "results");
    const crate = JSON.parse(await readFile(join(out, "artifacts", "ro-crate-metadata.json"), "utf8")) as {
      "@context": string[];
      "@graph": ({ "@id": string; "@type": string | string[] } & Record<string, unknown>)[];
    };
    expect(crate["@context"][0]).toBe("https://w3id.org/ro/crate/1.1/context");
    const byId = new Map(crate["@graph"].map((e) => [e["@id"], e]));
    expect(byId.get("ro-crate-metadata.json")).toMatchObject({ about: { "@id": "./" } });
    const root = byId.get("./")!;
    expect(root.conformsTo).toContainEqual({ "@id": "https://w3id.org/ro/wfrun/workflow/0.5" });
    for (const f of ["control.h5ad", "perturbed.h5ad"])
      expect(byId.get(`#input-${f}`)!.sha256, f).toBe(sha256(await readFile(join(SPLIT, f))));
    const parts = (root.hasPart as { "@id": string }[]).map((p) => p["@id"]);
    expect(parts.length).toBeGreaterThan(5);
    for (const name of parts)
      expect(byId.get(name)!.sha256, name).toBe(sha256(await readFile(join(out, "artifacts", name))));
  });

  it("writes the causal graph PNG, prints the paths and the quota", async () => {
    const png = join(work, "graph.png");
    const graph = await causeway(["graph", id, "--out", png, "--top-n-degs", "10", "--dpi", "72", "--json"]);
    expect(graph.code, graph.stderr).toBe(0);
    const image = await loadImage(await readFile(png));
    expect(image.width).toBeGreaterThan(200);
    expect(lastJson<{ sha256: string }>(graph).sha256).toBe(sha256(await readFile(png)));

    // The same graph for Cytoscape: every node and edge the PNG draws, from the stored replay inputs.
    const inputs = parseCausalGraphInputs(
      JSON.parse(await readFile(join(work, "results", "artifacts", "causal_graph_inputs.json"), "utf8")),
    );
    const drawn = selectGraph(inputs, 10);
    const graphml = await causeway(["graph", id, "--format", "graphml", "--top-n-degs", "10"]);
    expect(graphml.code, graphml.stderr).toBe(0);
    expect(validateXml(graphml.stdout)).toBe(true);
    const ids = (tag: string) =>
      [...graphml.stdout.matchAll(new RegExp(`<${tag} id="([^"]+)"`, "g"))].map((m) => m[1]);
    expect(ids("node").sort()).toEqual(drawn.nodes.map((n) => n.id).sort());
    expect(ids("edge")).toHaveLength(drawn.edges.length);
    const cx2File = join(work, "graph.cx2");
    const cx2 = await causeway([
      "graph",
      id,
      "--format",
      "cx2",
      "--top-n-degs",
      "10",
      "--out",
      cx2File,
      "--json",
    ]);
    expect(cx2.code, cx2.stderr).toBe(0);
    expect(lastJson<{ sha256: string }>(cx2).sha256).toBe(sha256(await readFile(cx2File)));

    const paths = lastJson<{ paths: { path: string }[]; degs_total: number }>(
      await causeway(["paths", id, "--json"]),
    );
    expect(paths.paths.length).toBeGreaterThan(0);
    expect(paths.paths.every((p) => p.path.startsWith("STAT1>"))).toBe(true);
    const table = await causeway(["paths", id]);
    expect(table.stderr).toMatch(/paths to \d+ impacted DEGs/);
    expect(table.stdout.split("\n")[0]).toBe("deg\tlength\tscore_path_given_target\tpath");

    expect(lastJson(await causeway(["quota", "--json"]))).toEqual({
      total_quota_requests: 100,
      consumed_quota_requests: 1,
      remaining_quota_requests: 99,
    });
  });

  it("prints the top of the table, the intermediary proteins and a compact status", async () => {
    const top = await causeway(["top", id, "-n", "5"]);
    expect(top.code, top.stderr).toBe(0);
    const lines = top.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(6);
    expect(lines[0]!.split("\t").slice(0, 3)).toEqual(["id", "score", "rank"]);
    const json = lastJson<{ id: string }[]>(await causeway(["top", id, "-n", "3", "--format", "json"]));
    expect(json.map((r) => r.id)).toEqual(lines.slice(1, 4).map((l) => l.split("\t")[0]));

    const inter = await causeway(["intermediaries", id, "--top-n-degs", "10"]);
    expect(inter.code, inter.stderr).toBe(0);
    expect(inter.stdout.split("\n")[0]).toBe("protein");
    expect(inter.stdout.trim().split("\n").length).toBeGreaterThan(1);

    const compact = lastJson<Record<string, unknown>>(await causeway(["status", id, "--json"]));
    expect(compact).toMatchObject({ prediction_id: id, status: "completed" });
    expect(compact).not.toHaveProperty("results");
    expect(compact).not.toHaveProperty("source_influence_matrix");
    const full = lastJson<Record<string, unknown>>(await causeway(["status", id, "--json", "--full"]));
    expect(Array.isArray(full.results)).toBe(true);
  });

  it("creates, reads, lists and draws a standalone causal analysis, STAT1 meaning STAT1|PROTEIN", async () => {
    const created = await causeway(["analyses", "create", id, "--target", "STAT1", "--wait", "--json"]);
    expect(created.code, created.stderr + server.log()).toBe(0);
    expect(created.stderr).toContain("target STAT1 read as STAT1|PROTEIN");
    const a = lastJson<{ causal_analysis_id: string; status: string; target: string; results: unknown }>(
      created,
    );
    expect(a).toMatchObject({ status: "completed", target: "STAT1|PROTEIN", results: null });
    const got = lastJson<{ causal_analysis_id: string }>(
      await causeway(["analyses", "get", a.causal_analysis_id, "--json"]),
    );
    expect(got.causal_analysis_id).toBe(a.causal_analysis_id);
    const list = await causeway(["analyses", "list", "--prediction", id]);
    expect(list.stdout.split("\n")[0]).toBe("causal_analysis_id\tstatus\ttarget");
    expect(list.stdout).toContain(a.causal_analysis_id);
    const png = join(work, "analysis.png");
    const graph = await causeway(["analyses", "graph", a.causal_analysis_id, "--out", png]);
    expect(graph.code, graph.stderr).toBe(0);
    expect((await loadImage(await readFile(png))).width).toBeGreaterThan(100);
  });

  it("lists and shows predictions, human and JSON", async () => {
    const list = lastJson<{ predictions: { prediction_id: string }[] }>(await causeway(["list", "--json"]));
    expect(list.predictions.map((p) => p.prediction_id)).toContain(id);
    expect((await causeway(["list"])).stdout).toContain(id);
    const status = await causeway(["status", id]);
    expect(status.stdout).toContain(`prediction ${id}: completed`);
    expect(status.stdout).toContain("top targets");
  });

  it("submits the merged file as target_id and waits for it in a second command", async () => {
    const submitted = await causeway([
      "submit",
      "--dataset",
      join(KANG_DIR, "kang2018_ifnb_cd14mono.h5ad"),
      "--job-type",
      "target_id",
      "--json",
    ]);
    expect(submitted.code, submitted.stderr).toBe(0);
    const { prediction_id } = lastJson<{ prediction_id: string }>(submitted);
    const waited = await causeway(["wait", prediction_id, "--json"]);
    expect(waited.code, waited.stderr + server.log()).toBe(0);
    expect(lastJson(waited)).toMatchObject({ prediction_id, status: "completed", job_type: "target_id" });
  });

  it("reads the URL and key from a profile file", async () => {
    const config = join(work, "config.json");
    const profileEnv = { PATH: process.env.PATH, HOME: work, CAUSEWAY_CONFIG: config };
    const set = await causeway(["configure", "--url", server.base, "--api-key", env.CAUSEWAY_API_KEY!], {
      env: profileEnv,
    });
    expect(set.code, set.stderr).toBe(0);
    const quota = await causeway(["quota", "--json"], { env: profileEnv });
    expect(quota.code, quota.stderr).toBe(0);
    expect(lastJson(quota)).toMatchObject({ total_quota_requests: 100 });
  });

  it("fails with one line naming the service's error code", async () => {
    const missing = await causeway(["status", "6f1c1f7e-8f8e-4a43-9d39-9b8f3f1f2b10"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("causeway: error: not_found: Not found. (HTTP 404)\n");
    const badKey = await causeway(["quota"], { env: { ...env, CAUSEWAY_API_KEY: "cw_nope" } });
    expect(badKey.stderr.trim().split("\n")).toHaveLength(1);
    expect(badKey.stderr).toMatch(/^causeway: error: unauthorized: .*\(HTTP 401\)$/m);
    const degs = join(work, "degs.json");
    await writeFile(degs, "[]");
    const invalid = await causeway(splitSubmit(degs));
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^causeway: error: invalid_input: degs: /);
    const noConfig = await causeway(["quota"], { env: { PATH: process.env.PATH, HOME: work } });
    expect(noConfig.stderr).toMatch(/^causeway: error: invalid_config: no service URL/);
  });
});
