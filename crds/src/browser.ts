/**
 * The part of the contract a browser can load: every module of index.ts except the two that
 * import node: modules (callback signing and the callback client). The web app's bundle
 * resolves `@causeway/contract` to this file (api/web/vite.config.ts); browser.test.ts keeps
 * the list in step with index.ts.
 */
export * from "./entity-id.ts";
export * from "./processing-steps.ts";
export * from "./failure-codes.ts";
export * from "./artifacts.ts";
export * from "./score-table.ts";
export * from "./job-spec.ts";
export * from "./callback.ts";
export * from "./resources.ts";
export * from "./conditions.ts";
export * from "./scoring-versions.ts";
export * from "./pool-protocol.ts";
export * from "./dataset-options.ts";
export * from "./gene-list.ts";
export * from "./storage-settings.ts";
export * from "./de-table-format.ts";
