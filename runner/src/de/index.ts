/**
 * Differential expression (model.md §5): DESeq2's negative-binomial GLM with empirical-Bayes
 * dispersions and a Wald test, ported to TypeScript, plus the DEG rule and the pooled fold
 * changes of split uploads.
 */
export type * from "./types.ts";
export { runDifferentialExpression } from "./run.ts";
export { DeInputError } from "./errors.ts";
export { filterByExpr } from "./filter.ts";
export { estimateSizeFactors } from "./size-factors.ts";
export { applyDegRule } from "./deg-rule.ts";
export type { DegRule, DegRuleResult } from "./deg-rule.ts";
export { pooledLog2FoldChanges, foldChangesForSplitUpload } from "./pooled.ts";
export type { PooledFoldChanges, SplitFoldChanges } from "./pooled.ts";
