/**
 * The part of the contract a browser can load (no node: modules): what the web app's bundle
 * resolves `@causeway/contract` to (api/web/vite.config.ts). Same modules, re-exported.
 */
export * from "./entity-id.ts";
export * from "./processing-steps.ts";
export * from "./failure-codes.ts";
export * from "./artifacts.ts";
export * from "./job-spec.ts";
export * from "./callback.ts";
export * from "./scoring-versions.ts";
