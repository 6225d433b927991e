/** The causeway SDK: a typed client of the HTTP API, its errors, and waiting for jobs. */
export { CausewayClient } from "./sdk.ts";
export type {
  CausalAnalysisCreated,
  CausalAnalysisList,
  CausalAnalysisRequest,
  CausalAnalysisStatus,
  CausalPaths,
  ClientOptions,
  DegsImpacted,
  GraphExportFormat,
  IntermediaryProteins,
  MappedDegs,
  PredictionStatus,
  PredictionSubmission,
  PredictionsPage,
  PredictResult,
  Quota,
  ResolvedGenes,
  StatusQuery,
  SubmissionOptions,
  TargetsPageQuery,
  TargetsPageResult,
} from "./sdk.ts";
export { CausewayError } from "./errors.ts";
export { GENE_COLUMNS, selectDegs, type DeTableSelection, type SelectDegsOptions } from "./de-table.ts";
export { waitForCausalAnalysis, waitForPrediction, type Progress, type WaitOptions } from "./wait.ts";
export { saveResults, type SavedFile, type SavedResults } from "./results.ts";
export { resolveConnection, type Connection } from "./config.ts";
