/**
 * Size and shape bounds applied to an uploaded .h5ad before anything is allocated
 * (engineering.md B.3, R9). Every dimension is read from HDF5 metadata and checked here first,
 * so a file that declares absurd sizes is rejected without reading its data.
 */
export interface ReadLimits {
  /** Cap on n_obs for this file; null = only the absurdity cap `hardMaxObs` applies. */
  maxObs: number | null;
  /** Ceiling on n_obs even when `maxObs` is null (merged files, checked per arm later). */
  hardMaxObs: number;
  maxVars: number;
  /** Stored non-zeros of one sparse matrix. */
  maxNnz: number;
  /** Elements of one dense matrix (n_obs × n_vars). */
  maxDenseElements: number;
  /** Stored values over all matrices read from one file. */
  maxTotalValues: number;
}

/** Structural bounds on the HDF5 tree itself. */
export interface TreeLimits {
  maxObjects: number;
  maxDepth: number;
  maxAttributesPerObject: number;
  /** Bytes of one attribute value (attributes are read whole). */
  maxAttributeBytes: number;
  /** Bytes of one uncompressed chunk: bounds what reading one element can inflate. */
  maxChunkBytes: number;
}

export const DEFAULT_READ_LIMITS: ReadLimits = {
  maxObs: 1000,
  hardMaxObs: 1_000_000,
  maxVars: 100_000,
  maxNnz: 50_000_000,
  maxDenseElements: 50_000_000,
  maxTotalValues: 100_000_000,
};

export const DEFAULT_TREE_LIMITS: TreeLimits = {
  // A walk step costs about 1–2 ms in h5wasm: 4,000 objects stay well inside the validator's 10 s.
  maxObjects: 4_000,
  maxDepth: 24,
  maxAttributesPerObject: 256,
  maxAttributeBytes: 1 << 20,
  maxChunkBytes: 64 << 20,
};

/** Limits with `maxObs` replaced; the per-call part of the limits. */
export function readLimits(maxObs: number | null, base: ReadLimits = DEFAULT_READ_LIMITS): ReadLimits {
  return { ...base, maxObs };
}
