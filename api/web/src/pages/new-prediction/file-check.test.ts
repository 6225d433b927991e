import { describe, expect, it } from "vitest";
import { fileProblem, hasHdf5Signature } from "./file-check.ts";

const HDF5 = [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a];
const h5 = (name: string, size = 4096, at = 0) => {
  const bytes = new Uint8Array(size);
  bytes.set(HDF5, at);
  return new File([bytes], name);
};
const obs = (nObs: number) => () => Promise.resolve({ nObs });

describe("the checks of a chosen .h5ad before upload", () => {
  it("finds HDF5's signature at 0 or after a user block, as the runner does", async () => {
    expect(await hasHdf5Signature(h5("a.h5ad"))).toBe(true);
    expect(await hasHdf5Signature(h5("a.h5ad", 4096, 1024))).toBe(true);
    expect(await hasHdf5Signature(new File(["%PDF-1.4 not hdf5"], "fake.h5ad"))).toBe(false);
  });

  it("calls an empty file empty, and a PDF not HDF5, with the field's label and the file's name", async () => {
    const none = { obsCap: null };
    expect(await fileProblem(new File([], "empty.h5ad"), "Control cells", none)).toBe(
      "Control cells (empty.h5ad): the file is empty (0 bytes); choose the .h5ad file itself.",
    );
    expect(await fileProblem(new File(["%PDF-1.4"], "fake.h5ad"), "Perturbed cells", none)).toMatch(
      /^Perturbed cells \(fake\.h5ad\): this is not an HDF5 file/,
    );
  });

  it("refuses a split file above 1,000 observations before upload, with the spec's cap", async () => {
    const message = await fileProblem(h5("pbmc.h5ad"), "Control cells", { obsCap: 1000 }, obs(1556));
    expect(message).toContain(
      "Control cells (pbmc.h5ad): the file has 1,556 observations; at most 1,000 are accepted per file.",
    );
    expect(await fileProblem(h5("ok.h5ad"), "Control cells", { obsCap: 1000 }, obs(1000))).toBeNull();
    // The merged shape has no per-file cap here (its per-condition cap is shown by DatasetColumns).
    expect(await fileProblem(h5("pbmc.h5ad"), "Merged dataset", { obsCap: null }, obs(1556))).toBeNull();
  });

  it("leaves a file it cannot read to the service", async () => {
    const unreadable = () => Promise.reject(new Error("larger than 1 GB"));
    expect(await fileProblem(h5("big.h5ad"), "Control cells", { obsCap: 1000 }, unreadable)).toBeNull();
  });
});
