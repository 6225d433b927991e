/**
 * The scorings a model version can name in its manifest (`scoring`): what the admin command line
 * and the API accept, and what the runner knows how to compute. A model version is a network
 * bundle plus one of these.
 */
import { z } from "zod";

export const SCORING_VERSIONS = ["v1", "v2", "v3"] as const;
export const ScoringVersion = z.enum(SCORING_VERSIONS);
export type ScoringVersion = z.infer<typeof ScoringVersion>;

/**
 * The scoring of a model manifest that names none: versions stored before scorings had names.
 * Such a manifest's identity carries no scoring token, so those versions re-import as no-ops.
 */
export const UNNAMED_MANIFEST_SCORING: ScoringVersion = "v1";
