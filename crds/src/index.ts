/**
 * @causeway/contract: everything two components must agree on. The job spec (what a runner is
 * asked to do), the callback payload and its signing, failure codes, processing steps, artifact
 * names, entity ids, and the Prediction / CausalAnalysis resources. Import from here, never copy.
 * Tracing lives at `@causeway/contract/telemetry` so that importing the contract stays cheap.
 */
export * from "./entity-id.ts";
export * from "./processing-steps.ts";
export * from "./failure-codes.ts";
export * from "./artifacts.ts";
export * from "./score-table.ts";
export * from "./job-spec.ts";
export * from "./callback.ts";
export * from "./callback-auth.ts";
export * from "./callback-client.ts";
export * from "./resources.ts";
export * from "./conditions.ts";
export * from "./scoring-versions.ts";
export * from "./pool-protocol.ts";
export * from "./dataset-options.ts";
export * from "./gene-list.ts";
export * from "./storage-settings.ts";
export * from "./de-table-format.ts";
export * from "./cache-dirs.ts";
