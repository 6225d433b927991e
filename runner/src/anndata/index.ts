/** Reading uploaded AnnData (.h5ad) files safely: the API's pre-check and the runner's reader. */
export {
  validateUpload,
  closeUploadValidator,
  warmUpUploadValidator,
  prepareUploadValidator,
  UploadRejected,
  type UploadCheck,
  type ValidateOptions,
  type UploadRejectionCode,
} from "./validate-upload.ts";
export {
  readAnnData,
  inspectAnnData,
  columnAsStrings,
  type AnnData,
  type CsrMatrix,
  type DataFrame,
  type FrameColumn,
} from "./read-anndata.ts";
export { countMatrixOrder, type MatrixName, type AnnDataLayout } from "./layout.ts";
export {
  DEFAULT_READ_LIMITS,
  DEFAULT_TREE_LIMITS,
  readLimits,
  type ReadLimits,
  type TreeLimits,
} from "./limits.ts";
export { invalidH5ad } from "./errors.ts";
export { writeAnnData, csrRows, frameRows } from "./write-anndata.ts";
