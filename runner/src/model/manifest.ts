/**
 * `model_manifest.json` (model.md §12.1): everything that changes numbers, and the checksums
 * of the files of an immutable model version.
 */
import { z } from "zod";
import { SCORING_VERSIONS, UNNAMED_MANIFEST_SCORING } from "@causeway/contract";
import { LayerKind } from "../libraries/gmt.ts";

/** Bump when the stored bundle layout changes, so caches keyed on it are rebuilt. */
export const BUNDLE_FORMAT = 1;

/** Model v1 default of `max_path_length` in nodes (§10.3). */
export const DEFAULT_MAX_PATH_LENGTH = 6;

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/** How target scores are computed from a bundle: model v1 (model.md §7) or v2 (runner/docs/model-v2.md). */
export { SCORING_VERSIONS } from "@causeway/contract";

/** Schema of model_manifest.json. */
export const ModelManifest = z.object({
  version: z.string().min(1).max(128),
  bundle_format: z.literal(BUNDLE_FORMAT),
  network: z.object({ file: z.string().min(1), sha256 }),
  hgnc: z.record(z.string(), sha256),
  alpha: z.number().gt(0).lt(1),
  rho: z.number().min(0).max(1),
  hub_exponent: z.number().min(0),
  weight_rule: z.enum(["uniform", "dorothea_confidence"]),
  /** The scoring this version uses; manifests written before v2 existed are v1. */
  scoring: z.enum(SCORING_VERSIONS).default(UNNAMED_MANIFEST_SCORING),
  /**
   * Evidence layers (gene-set libraries the operator supplied, model v3): each names its stored
   * file (`layers/<file>`, listed in `files` with its checksum) and what its sets say.
   */
  layers: z
    .array(z.object({ name: z.string().min(1).max(128), kind: LayerKind, file: z.string().min(1), sha256 }))
    .optional(),
  iterations: z.number().int().positive(),
  tolerance: z.number().positive(),
  zero_below: z.number().min(0),
  default_max_path_length: z.number().int().min(1),
  counts: z.object({
    proteins: z.number().int(),
    rnas: z.number().int(),
    sources: z.number().int(),
    edges: z.number().int(),
    signaling_edges: z.number().int(),
    transcriptional_edges: z.number().int(),
  }),
  /** Stored files relative to the version's prefix, with their checksums. */
  files: z.record(z.string(), z.object({ sha256, bytes: z.number().int().min(0) })),
  created_at: z.string(),
  runner_version: z.string(),
});
export type ModelManifest = z.infer<typeof ModelManifest>;

/** The fields that define a version's numbers: two imports with equal identities are the same version. */
export function manifestIdentity(
  m: Pick<
    ModelManifest,
    | "bundle_format"
    | "network"
    | "hgnc"
    | "alpha"
    | "rho"
    | "hub_exponent"
    | "tolerance"
    | "default_max_path_length"
  > & {
    scoring?: (typeof SCORING_VERSIONS)[number];
    layers?: readonly { name: string; kind: string; sha256: string }[] | undefined;
  },
): string {
  const hgnc = Object.keys(m.hgnc)
    .sort()
    .map((k) => [k, m.hgnc[k]]);
  return JSON.stringify([
    m.bundle_format,
    m.network.sha256,
    hgnc,
    m.alpha,
    m.rho,
    m.hub_exponent,
    m.tolerance,
    m.default_max_path_length,
    // Unnamed-scoring identities keep their original form, so existing versions re-import as no-ops.
    ...(m.scoring === undefined || m.scoring === UNNAMED_MANIFEST_SCORING ? [] : [`scoring:${m.scoring}`]),
    ...(m.layers ?? []).map((l) => `layer:${l.name}:${l.kind}:${l.sha256}`),
  ]);
}
