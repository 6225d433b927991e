/**
 * The provenance record of a run (ro-crate-metadata.json): the Kang split pair run as a
 * target_validation job of STAT1 through runJob, its crate read back from the store and checked
 * as RO-Crate 1.1 JSON-LD with the Workflow Run Crate profiles, its checksums against the
 * uploaded files, the stored artifacts and the model's manifest; then a failed run's crate, and
 * the run metadata of a causal analysis on that prediction.
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARTIFACTS, CausalParams, JobSpec, PredictionParams } from "@causeway/contract";
import { KANG_DIR } from "../../../test/shared-data.ts";
import { defaultModel } from "../../test/fixtures/model/default-model.ts";
import type { Model } from "../model/index.ts";
import { FsObjectStore } from "../storage/index.ts";
import type { FinalReport, Reporter } from "./reporter.ts";
import { RO_CRATE_CONTEXT, RO_CRATE_PROFILES } from "./ro-crate.ts";
import { runJob } from "./run-job.ts";

type Entity = Record<string, unknown> & { "@id": string; "@type": string | string[] };
interface Crate {
  "@context": unknown;
  "@graph": Entity[];
}

const SPLIT = join(KANG_DIR, "split_cd14mono");
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const ids = (v: unknown): string[] =>
  (Array.isArray(v) ? v : v === undefined ? [] : [v]).map((r) => (r as { "@id": string })["@id"]);
const types = (e: Entity): string[] => (Array.isArray(e["@type"]) ? e["@type"] : [e["@type"]]);

/**
 * RO-Crate 1.1 (w3id.org/ro/crate/1.1) as a checker: the context, a flat @graph of entities with
 * unique @id and a @type, the metadata descriptor about the root data entity, every reference
 * resolving inside the graph (or an absolute URI), every File with a SHA-256; and the Workflow
 * Run Crate rules: the root conforms to its profiles, its mainEntity is the workflow, it mentions
 * a CreateAction whose instrument is that workflow.
 */
function checkRoCrate(crate: Crate): Map<string, Entity> {
  expect(crate["@context"]).toEqual(RO_CRATE_CONTEXT);
  expect((crate["@context"] as string[])[0]).toBe("https://w3id.org/ro/crate/1.1/context");
  const byId = new Map<string, Entity>();
  for (const e of crate["@graph"]) {
    expect(typeof e["@id"]).toBe("string");
    expect(e["@type"], e["@id"]).toBeDefined();
    expect(byId.has(e["@id"]), `duplicate ${e["@id"]}`).toBe(false);
    byId.set(e["@id"], e);
  }
  const descriptor = byId.get("ro-crate-metadata.json")!;
  expect(descriptor["@type"]).toBe("CreativeWork");
  expect(ids(descriptor.conformsTo)).toContain("https://w3id.org/ro/crate/1.1");
  expect(ids(descriptor.about)).toEqual(["./"]);
  const root = byId.get("./")!;
  expect(types(root)).toContain("Dataset");
  expect(root.datePublished).toMatch(/^\d{4}-\d\d-\d\dT/);
  expect(ids(root.conformsTo)).toEqual(
    expect.arrayContaining([
      "https://w3id.org/ro/wfrun/process/0.5",
      "https://w3id.org/ro/wfrun/workflow/0.5",
    ]),
  );
  for (const profile of Object.keys(RO_CRATE_PROFILES))
    expect(types(byId.get(profile)!)).toContain("CreativeWork");
  // Every reference resolves: in the graph, or an absolute URI (schema.org's action statuses).
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      if (Object.keys(o).length === 1 && typeof o["@id"] === "string") {
        const id = o["@id"];
        expect(byId.has(id) || /^https?:\/\//.test(id), `dangling reference ${id}`).toBe(true);
      } else Object.values(o).forEach(walk);
    }
  };
  for (const e of crate["@graph"]) for (const [k, v] of Object.entries(e)) if (k !== "@id") walk(v);
  const workflow = byId.get(ids(root.mainEntity)[0]!)!;
  // Every file has its digest; the workflow is typed File by the profile but names the job's program.
  for (const e of crate["@graph"])
    if (types(e).includes("File") && e !== workflow)
      expect(e.sha256, `${e["@id"]} has a sha256`).toMatch(/^[0-9a-f]{64}$/);
  expect(types(workflow)).toEqual(["File", "SoftwareSourceCode", "ComputationalWorkflow"]);
  const action = byId.get(ids(root.mentions)[0]!)!;
  expect(action["@type"]).toBe("CreateAction");
  expect(ids(action.instrument)).toEqual([workflow["@id"]]);
  return byId;
}

let dir: string;
let store: FsObjectStore;
let model: Model;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "causeway-ro-crate-"));
  store = new FsObjectStore(dir);
  model = await defaultModel();
  for (const f of ["control.h5ad", "perturbed.h5ad", "degs.json"])
    await store.put(`uploads/${f}`, await readFile(join(SPLIT, f)));
}, 180_000);
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** A target_validation job of STAT1 on the Kang split pair, which beforeAll stores under uploads/. */
function kangValidation(outputPrefix: string): JobSpec {
  return JobSpec.parse({
    kind: "prediction",
    job_id: randomUUID(),
    account_id: randomUUID(),
    job_type: "target_validation",
    model_version: model.manifest.version,
    target: "STAT1|PROTEIN",
    inputs: {
      shape: "split",
      control_key: "uploads/control.h5ad",
      perturbed_key: "uploads/perturbed.h5ad",
      degs_key: "uploads/degs.json",
    },
    params: PredictionParams.parse({ n_randomizations: 0 }),
    output_prefix: outputPrefix,
  });
}

async function run(
  spec: JobSpec,
): Promise<{ report: FinalReport; crate: Crate; files: Map<string, string> }> {
  let report: FinalReport | null = null;
  const reporter: Reporter = {
    async step() {},
    async finish(r) {
      report = r;
    },
  };
  await runJob(spec, { store, reporter, attempt: "a1", loadModel: async () => model });
  const files = new Map(report!.result_files.map((f) => [f.name, f.key]));
  const crate = JSON.parse((await store.get(files.get(ARTIFACTS.roCrate)!)).toString("utf8")) as Crate;
  return { report: report!, crate, files };
}

describe("the run's ro-crate-metadata.json", () => {
  it("is a Workflow Run Crate whose checksums match the uploads, the artifacts and the model", async () => {
    const degs = await readFile(join(SPLIT, "degs.json"));
    const spec = kangValidation("results/p1");
    const { report, crate, files } = await run(spec);
    expect(report.status).toBe("completed");
    const byId = checkRoCrate(crate);

    // Inputs: the uploaded bytes.
    const inputs = [...byId.values()].filter((e) => e["@id"].startsWith("#input-"));
    expect(Object.fromEntries(inputs.map((e) => [e.name, e.sha256]))).toEqual({
      "control.h5ad": sha256(await readFile(join(SPLIT, "control.h5ad"))),
      "perturbed.h5ad": sha256(await readFile(join(SPLIT, "perturbed.h5ad"))),
      "degs.json": sha256(degs),
    });
    // Outputs: every other stored artifact, byte for byte.
    const root = byId.get("./")!;
    expect(ids(root.hasPart).sort()).toEqual([...files.keys()].filter((n) => n !== ARTIFACTS.roCrate).sort());
    for (const name of ids(root.hasPart)) {
      const stored = await store.get(files.get(name)!);
      expect(byId.get(name)!.sha256, name).toBe(sha256(stored));
      expect(byId.get(name)!.contentSize).toBe(String(stored.length));
    }
    // The model version with every file of its manifest.
    const modelEntity = byId.get(`#model-${model.manifest.version}`)!;
    expect(ids(modelEntity.hasPart)).toHaveLength(Object.keys(model.manifest.files).length);
    for (const [path, f] of Object.entries(model.manifest.files))
      expect(byId.get(`#model-${model.manifest.version}/${path}`)!.sha256).toBe(f.sha256);
    // Every parameter, the software versions and the timings.
    const action = byId.get(ids(root.mentions)[0]!)!;
    const values = ids(action.object)
      .map((id) => byId.get(id)!)
      .filter((e) => e["@type"] === "PropertyValue");
    expect(Object.fromEntries(values.map((v) => [v.name, v.value]))).toMatchObject({
      target: "STAT1|PROTEIN",
      model_version: model.manifest.version,
      n_randomizations: 0,
      top_n_causal_degs: spec.params.top_n_causal_degs,
    });
    expect(values.length).toBe(Object.keys(spec.params).length + 2);
    expect(action.actionStatus).toEqual({ "@id": "http://schema.org/CompletedActionStatus" });
    expect(Date.parse(String(action.endTime))).toBeGreaterThanOrEqual(Date.parse(String(action.startTime)));
    expect(ids(action.additionalProperty).length).toBeGreaterThan(2);
    expect(byId.get("#causeway-runner")!.softwareVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(byId.get("#nodejs")!.softwareVersion).toBe(process.versions.node);
  }, 180_000);

  it("is written for a failed run too, with the failure", async () => {
    await store.put("uploads/bad.h5ad", Buffer.from("not an h5ad"));
    const spec = JobSpec.parse({
      kind: "prediction",
      job_id: randomUUID(),
      account_id: randomUUID(),
      job_type: "target_id",
      model_version: model.manifest.version,
      target: null,
      inputs: { shape: "merged", dataset_key: "uploads/bad.h5ad" },
      params: PredictionParams.parse({}),
      output_prefix: "results/p2",
    });
    const { report, crate } = await run(spec);
    expect(report.status).toBe("failed");
    const byId = checkRoCrate(crate);
    const action = byId.get(`#run-${spec.job_id}`)!;
    expect(action.actionStatus).toEqual({ "@id": "http://schema.org/FailedActionStatus" });
    expect(action.error).toMatch(/^[a-z0-9_]+: /);
    expect(byId.get("#input-dataset.h5ad")!.sha256).toBe(sha256(Buffer.from("not an h5ad")));
  }, 120_000);
});

describe("a causal analysis's run_metadata.json", () => {
  it("holds the client's metadata keys beside the runner's own, which they never replace", async () => {
    const prediction = kangValidation("results/p3");
    const { files: predictionFiles } = await run(prediction);
    const spec = JobSpec.parse({
      kind: "causal_analysis",
      job_id: randomUUID(),
      account_id: prediction.account_id,
      prediction_id: prediction.job_id,
      model_version: model.manifest.version,
      target: "STAT2|PROTEIN",
      prediction_artifacts: Object.fromEntries(predictionFiles),
      params: CausalParams.parse({}),
      metadata: { project: "ifnb-monocytes", job_id: "not-this-job" },
      output_prefix: "results/c1",
    });
    const { report, files } = await run(spec);
    expect(report.status).toBe("completed");
    const meta = JSON.parse((await store.get(files.get("run_metadata.json")!)).toString("utf8")) as Record<
      string,
      unknown
    >;
    expect(meta.project).toBe("ifnb-monocytes");
    expect(meta.job_id).toBe(spec.job_id);
  }, 180_000);
});
