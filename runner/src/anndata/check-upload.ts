/**
 * The structural pre-check of an uploaded .h5ad (contract rule 3(d)), in-thread. Reads only
 * metadata and small attributes; `validateUpload` runs it in a recyclable worker.
 */
import { JobFailure } from "@causeway/contract";
import { H5LibraryFailure } from "./errors.ts";
import { inspectAnnData } from "./read-anndata.ts";
import { readLimits } from "./limits.ts";

/** What the API learns about an accepted upload. */
export interface UploadCheck {
  nObs: number;
  nVars: number;
  obsColumns: string[];
  varColumns: string[];
  layers: string[];
}

/** The outcome of one check, as sent back by the worker. */
export type UploadCheckResult =
  | { ok: true; check: UploadCheck }
  | {
      ok: false;
      code: "invalid_h5ad" | "too_many_observations";
      message: string;
      detail?: string;
      /** True when h5wasm itself failed, after which its state is not trusted. */
      libraryFault: boolean;
    };

/** Checks one file; never throws. */
export async function checkUpload(path: string, maxObs: number | null): Promise<UploadCheckResult> {
  try {
    const layout = await inspectAnnData(path, readLimits(maxObs));
    return {
      ok: true,
      check: {
        nObs: layout.nObs,
        nVars: layout.nVars,
        obsColumns: [...layout.obs.columns.map((c) => c.name), ...layout.obs.skipped],
        varColumns: [...layout.var.columns.map((c) => c.name), ...layout.var.skipped],
        layers: layout.layers,
      },
    };
  } catch (err) {
    if (err instanceof JobFailure && (err.code === "invalid_h5ad" || err.code === "too_many_observations")) {
      return {
        ok: false,
        code: err.code,
        message: err.message,
        ...(err.detail ? { detail: err.detail } : {}),
        libraryFault: err instanceof H5LibraryFailure,
      };
    }
    return {
      ok: false,
      code: "invalid_h5ad",
      message: "The file could not be read as AnnData; re-export it with anndata's write_h5ad.",
      detail: err instanceof Error ? err.message.slice(0, 500) : String(err),
      libraryFault: true,
    };
  }
}
