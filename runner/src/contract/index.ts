/** The runner's contract with the API and the operator: import from here, never copy. */
export * from "./entity-id.ts";
export * from "./processing-steps.ts";
export * from "./failure-codes.ts";
export * from "./artifacts.ts";
export * from "./job-spec.ts";
export * from "./callback.ts";
export * from "./callback-auth.ts";
