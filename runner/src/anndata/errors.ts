import { JobFailure } from "@causeway/contract";

/** A JobFailure with code `invalid_h5ad`: the file cannot be read as AnnData. */
export function invalidH5ad(message: string, detail?: string): JobFailure {
  return new JobFailure("invalid_h5ad", message, detail);
}

/**
 * An `invalid_h5ad` failure caused by an exception inside h5wasm (an HDF5 error or a wasm
 * trap) rather than by a check of ours: h5wasm's state may be corrupted after it (h5wasm#104),
 * so the validator retires its worker.
 */
export class H5LibraryFailure extends JobFailure {
  constructor(message: string, detail: string) {
    super("invalid_h5ad", message, detail);
  }
}

/** Codes the upload pre-check (contract rule 3(d)) can answer with. */
export type UploadRejectionCode = "invalid_h5ad" | "too_many_observations";

/**
 * Thrown by `validateUpload` when an uploaded file is refused. `message` is user-facing and
 * safe to return in a 422 body; it never contains host paths.
 */
export class UploadRejected extends Error {
  readonly code: UploadRejectionCode;

  constructor(code: UploadRejectionCode, message: string) {
    super(message);
    this.name = "UploadRejected";
    this.code = code;
  }
}
