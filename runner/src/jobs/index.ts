/**
 * The job's input pieces that the validation workspace (runner/validation/) reuses, so a
 * benchmark case is scored from exactly the inputs a job would build: the contrast of a DEG
 * list or merged upload, a user-supplied DE table, and the scoring input they become.
 */
export { contrastFromDegList, contrastFromMerged, controlDepthOf } from "./contrast.ts";
export { readDeTable, type DeTable } from "./de-table.ts";
export { scoringInputOf } from "./scoring-input.ts";
