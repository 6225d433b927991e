/**
 * `ro-crate-metadata.json` beside a job's artifacts: a Workflow Run RO-Crate (RO-Crate 1.1 with
 * the Process and Workflow Run Crate 0.5 profiles), the provenance record Galaxy and Nextflow give
 * for their runs. It says what ran (the causeway job, its runner and Node versions), on what (each
 * input and each file of the model version, with their SHA-256), with which parameters, when and
 * how long each stage took, and what came out (every artifact of this attempt, with its SHA-256).
 *
 * Written by hand: the JSON-LD is one flat `@graph` of plain objects, and ro-crate-js would add a
 * dependency (and its own model of the crate) to the runner image for it.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { ARTIFACTS, mediaTypeOf, type JobSpec } from "@causeway/contract";
import type { ModelManifest } from "../model/index.ts";
import type { ArtifactWriter } from "./artifact-writer.ts";
import type { RunMetadata } from "./run-metadata.ts";

export const RO_CRATE_CONTEXT = [
  "https://w3id.org/ro/crate/1.1/context",
  "https://w3id.org/ro/terms/workflow-run/context",
];
/** The profiles the root data entity conforms to (permalinks of the versions followed here). */
export const RO_CRATE_PROFILES = {
  "https://w3id.org/ro/wfrun/process/0.5": ["Process Run Crate", "0.5"],
  "https://w3id.org/ro/wfrun/workflow/0.5": ["Workflow Run Crate", "0.5"],
  "https://w3id.org/workflowhub/workflow-ro-crate/1.0": ["Workflow RO-Crate", "1.0"],
} as const;

/** An input the job read, as the crate lists it. */
export interface CrateInput {
  /** Its name as the job knows it (`control.h5ad`, `degs.json`, a prediction's `mapped_degs.json`). */
  name: string;
  sha256: string;
  bytes: number;
  encodingFormat: string;
  description: string;
}

/** Everything the crate is written from. */
export interface RunCrate {
  spec: JobSpec;
  out: ArtifactWriter;
  metadata: RunMetadata;
  /** The model version's manifest (its files and their checksums); null when it failed to load. */
  model: ModelManifest | null;
  inputs: readonly CrateInput[];
  /** The job's failure, if it failed. */
  failure: { code: string; message: string } | null;
}

type Entity = Record<string, unknown> & { "@id": string };
const ref = (id: string) => ({ "@id": id });

/** SHA-256 and size of a local file, streamed (an upload can be hundreds of MB). */
export async function fileDigest(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { sha256: hash.digest("hex"), bytes };
}

export const bufferDigest = (body: Buffer): { sha256: string; bytes: number } => ({
  sha256: createHash("sha256").update(body).digest("hex"),
  bytes: body.length,
});

/** The crate's JSON-LD for a run; `outputs` are the artifacts already written, with their digests. */
export function buildRunCrate(
  run: Omit<RunCrate, "out">,
  outputs: readonly { name: string; sha256: string; bytes: number }[],
  now: Date = new Date(),
): { "@context": string[]; "@graph": Entity[] } {
  const { spec } = run;
  const meta = run.metadata.toJSON() as {
    runner_version?: string;
    started_at?: string;
    timings_seconds?: Record<string, number>;
  };
  const what = spec.kind === "prediction" ? `${spec.job_type} prediction` : "causal analysis";
  const workflowId = `#causeway-${spec.kind === "prediction" ? spec.job_type : "causal_analysis"}`;
  const runId = `#run-${spec.job_id}`;
  const software = "#causeway-runner";
  const node = "#nodejs";

  const parameters = Object.entries(spec.params as Record<string, unknown>).filter(
    ([, v]) => v !== undefined,
  );
  const extra: [string, unknown][] = [
    ...(spec.kind === "prediction" && spec.target ? [["target", spec.target] as [string, unknown]] : []),
    ...(spec.kind === "causal_analysis" ? [["target", spec.target] as [string, unknown]] : []),
    ["model_version", spec.model_version],
  ];
  const allParameters = [...extra, ...parameters];
  const formal = (name: string) => `#param-${name}`;
  const formalIn = (name: string) => `#in-${name}`;
  const formalOut = (name: string) => `#out-${name}`;
  const value = (name: string) => `#pv-${name}`;

  const inputs: Entity[] = run.inputs.map((i) => ({
    "@id": `#input-${i.name}`,
    "@type": "File",
    name: i.name,
    description: i.description,
    encodingFormat: i.encodingFormat,
    contentSize: String(i.bytes),
    sha256: i.sha256,
  }));
  const modelId = `#model-${spec.model_version}`;
  const modelFiles: Entity[] = Object.entries(run.model?.files ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, f]) => ({
      "@id": `${modelId}/${path}`,
      "@type": "File",
      name: path,
      encodingFormat: mediaTypeOf(path),
      contentSize: String(f.bytes),
      sha256: f.sha256,
    }));
  const model: Entity = {
    "@id": modelId,
    "@type": "Dataset",
    name: `causeway model version ${spec.model_version}`,
    version: spec.model_version,
    description: run.model
      ? `Interactome ${run.model.network.file} (sha256 ${run.model.network.sha256}), scoring ${run.model.scoring}, ` +
        `alpha ${run.model.alpha}, rho ${run.model.rho}, created ${run.model.created_at} by runner ${run.model.runner_version}.`
      : "The model version could not be loaded.",
    hasPart: modelFiles.map((f) => ref(f["@id"])),
  };
  const outputs_: Entity[] = outputs.map((o) => ({
    "@id": o.name,
    "@type": "File",
    name: o.name,
    encodingFormat: mediaTypeOf(o.name),
    contentSize: String(o.bytes),
    sha256: o.sha256,
  }));
  const timings: Entity[] = Object.entries(meta.timings_seconds ?? {}).map(([stage, seconds]) => ({
    "@id": `#timing-${stage}`,
    "@type": "PropertyValue",
    name: `${stage} seconds`,
    value: seconds,
    unitCode: "SEC",
  }));
  const runnerVersion = meta.runner_version ?? "unknown";

  const graph: Entity[] = [
    {
      "@id": "ro-crate-metadata.json",
      "@type": "CreativeWork",
      conformsTo: [
        ref("https://w3id.org/ro/crate/1.1"),
        ref("https://w3id.org/workflowhub/workflow-ro-crate/1.0"),
      ],
      about: ref("./"),
    },
    {
      "@id": "./",
      "@type": "Dataset",
      name: `causeway ${what} ${spec.job_id}`,
      description: `The artifacts of one run of a causeway ${what}, with what it read, its parameters and its timings.`,
      datePublished: now.toISOString(),
      conformsTo: Object.keys(RO_CRATE_PROFILES).map(ref),
      mainEntity: ref(workflowId),
      hasPart: outputs_.map((o) => ref(o["@id"])),
      mentions: [ref(runId)],
    },
    ...Object.entries(RO_CRATE_PROFILES).map(([id, [name, version]]) => ({
      "@id": id,
      "@type": "CreativeWork",
      name,
      version,
    })),
    {
      "@id": workflowId,
      "@type": ["File", "SoftwareSourceCode", "ComputationalWorkflow"],
      name: `causeway ${what}`,
      description:
        "The causeway runner's job: inputs checked and aggregated, differential expression, target scores on the interactome, causal paths (model.md).",
      version: runnerVersion,
      programmingLanguage: ref("#typescript"),
      softwareRequirements: [ref(software), ref(node)],
      input: [...run.inputs.map((i) => ref(formalIn(i.name))), ...allParameters.map(([k]) => ref(formal(k)))],
      output: outputs_.map((o) => ref(formalOut(o["@id"]))),
    },
    {
      "@id": "#typescript",
      "@type": "ComputerLanguage",
      name: "TypeScript",
      url: "https://www.typescriptlang.org/",
    },
    {
      "@id": software,
      "@type": "SoftwareApplication",
      name: "causeway runner",
      softwareVersion: runnerVersion,
    },
    { "@id": node, "@type": "SoftwareApplication", name: "Node.js", softwareVersion: process.versions.node },
    ...run.inputs.map((i) => formalParameter(formalIn(i.name), i.name, "File", `#input-${i.name}`)),
    ...allParameters.map(([k, v]) => formalParameter(formal(k), k, parameterType(v), value(k))),
    ...outputs_.map((o) => formalParameter(formalOut(o["@id"]), o["@id"], "File", o["@id"])),
    {
      "@id": runId,
      "@type": "CreateAction",
      name: `Run of causeway ${what} ${spec.job_id} (attempt ${String(run.metadata.toJSON().attempt ?? "")})`,
      instrument: ref(workflowId),
      ...(meta.started_at ? { startTime: meta.started_at } : {}),
      endTime: now.toISOString(),
      actionStatus: ref(
        run.failure ? "http://schema.org/FailedActionStatus" : "http://schema.org/CompletedActionStatus",
      ),
      ...(run.failure ? { error: `${run.failure.code}: ${run.failure.message}` } : {}),
      object: [
        ...inputs.map((i) => ref(i["@id"])),
        ref(modelId),
        ...allParameters.map(([k]) => ref(value(k))),
      ],
      result: outputs_.map((o) => ref(o["@id"])),
      // Seconds per stage (run_metadata.json's timings_seconds).
      additionalProperty: timings.map((t) => ref(t["@id"])),
    },
    ...allParameters.map(([k, v]) => ({
      "@id": value(k),
      "@type": "PropertyValue",
      name: k,
      value: typeof v === "object" && v !== null ? JSON.stringify(v) : v === null ? "null" : v,
      exampleOfWork: ref(formal(k)),
    })),
    ...inputs.map((i) => ({ ...i, exampleOfWork: ref(formalIn(String(i.name))) })),
    model,
    ...modelFiles,
    ...outputs_.map((o) => ({ ...o, exampleOfWork: ref(formalOut(o["@id"])) })),
    ...timings,
  ];
  return { "@context": RO_CRATE_CONTEXT, "@graph": graph };
}

function formalParameter(id: string, name: string, type: string, example: string): Entity {
  return {
    "@id": id,
    "@type": "FormalParameter",
    conformsTo: ref("https://bioschemas.org/profiles/FormalParameter/1.0-RELEASE"),
    name,
    additionalType: type,
    workExample: ref(example),
  };
}

const parameterType = (v: unknown): string =>
  typeof v === "boolean"
    ? "Boolean"
    : Number.isInteger(v)
      ? "Integer"
      : typeof v === "number"
        ? "Float"
        : "Text";

/**
 * The hook: writes the crate of the run beside its artifacts (every artifact written so far,
 * run_metadata.json included, is listed with its digest). Call it last, after every other write.
 */
export async function writeRunCrate(run: RunCrate): Promise<void> {
  const outputs = run.out
    .files()
    .filter((f) => f.name !== ARTIFACTS.roCrate)
    .map((f) => ({ name: f.name, ...run.out.digestOf(f.name)! }));
  await run.out.writeJson(ARTIFACTS.roCrate, buildRunCrate(run, outputs));
}
