/**
 * What a submitter may say about an uploaded dataset instead of letting the runner guess
 * (model.md §3.3): which obs column plays which role, which condition level is the control,
 * which cell type of a merged file to analyse, and the species of its gene symbols. Every field
 * is optional; an absent field keeps the automatic detection.
 */
import { z } from "zod";

/** Species of the uploaded gene identifiers; mouse symbols map to human through one-to-one orthologues. */
export const SPECIES = ["human", "mouse"] as const;
export const Species = z.enum(SPECIES);
export type Species = z.infer<typeof Species>;

/** An obs column name or a level as written in the file. */
const name = z.string().min(1).max(256);

export const DatasetOptions = z.object({
  condition_column: name.nullable().default(null),
  control_level: name.nullable().default(null),
  sample_column: name.nullable().default(null),
  donor_column: name.nullable().default(null),
  cell_type_column: name.nullable().default(null),
  cell_type: name.nullable().default(null),
  species: Species.default("human"),
});
export type DatasetOptions = z.infer<typeof DatasetOptions>;

/** The options of a spec written before they existed: detect everything, human genes. */
export const DEFAULT_DATASET_OPTIONS: DatasetOptions = DatasetOptions.parse({});

/** A job warning as clients see it: a stable code and a sentence. */
export const JobWarning = z.object({
  code: z.string().min(1).max(64),
  message: z.string().min(1).max(2000),
});
export type JobWarning = z.infer<typeof JobWarning>;
