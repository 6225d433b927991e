/**
 * The checks of a chosen .h5ad the page can make before uploading it, so that a file the service
 * would refuse is not sent first: an empty file, a file without HDF5's signature (the runner's
 * `hasHdf5Signature`: offset 0, then 512, 1024, … up to 16 MiB), and, for the split shape, the
 * spec's cap of 1,000 observations per control or perturbed file ("checked before upload",
 * service-spec §8), with the runner's wording (runner/src/anndata/layout.ts). When the page
 * cannot read the obs (a file above 1 GB, an old layout), the service decides.
 */
import { readObs } from "./read-obs.ts";

export const SPLIT_OBS_CAP = 1000;
const HDF5_SIGNATURE = [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a];

export async function hasHdf5Signature(file: Blob): Promise<boolean> {
  for (
    let offset = 0;
    offset + 8 <= file.size && offset <= 1 << 24;
    offset = offset === 0 ? 512 : offset * 2
  ) {
    const head = new Uint8Array(await file.slice(offset, offset + 8).arrayBuffer());
    if (HDF5_SIGNATURE.every((b, i) => head[i] === b)) return true;
  }
  return false;
}

const f = (n: number) => n.toLocaleString("en");

/** Why `file` cannot be sent as `label` ("Control cells"), or null when it may be. */
export async function fileProblem(
  file: File,
  label: string,
  options: { obsCap: number | null },
  read: (file: File) => Promise<{ nObs: number }> = readObs,
): Promise<string | null> {
  const name = `${label} (${file.name})`;
  if (file.size === 0) return `${name}: the file is empty (0 bytes); choose the .h5ad file itself.`;
  if (!(await hasHdf5Signature(file)))
    return `${name}: this is not an HDF5 file; choose an AnnData .h5ad file written by anndata (write_h5ad).`;
  if (options.obsCap === null) return null;
  let nObs: number;
  try {
    nObs = (await read(file)).nObs;
  } catch {
    return null;
  }
  if (nObs <= options.obsCap) return null;
  return `${name}: the file has ${f(nObs)} observations; at most ${f(options.obsCap)} are accepted per file. Subsample cells or split the dataset (causeway prepare --max-obs ${options.obsCap} writes a subsampled pair), or upload the whole dataset as one merged file.`;
}
