/** Codecs of the artifact formats: TSV tables and `.npy` matrices. */
export * from "./tsv.ts";
export * from "./npy.ts";
