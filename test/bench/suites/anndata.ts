/**
 * Reading uploaded AnnData: the h5wasm reader (runner/src/anndata) against the reference
 * reader, Debian's python3-anndata (`anndata.read_h5ad`), on the same Kang 2018 files in the
 * same run. The reference is timed inside Python so that interpreter start-up and imports are
 * not counted; without /usr/bin/python3 + anndata the reference is reported as missing. Also
 * times the upload pre-check (validateUpload, worker warm) and the full input checks.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import type { BenchRow, BenchSuite } from "../bench.ts";
import { timeIt } from "../bench.ts";
import { HGNC_DIR, KANG_DIR } from "../../shared-data.ts";
import {
  closeUploadValidator,
  readAnnData,
  readLimits,
  validateUpload,
  warmUpUploadValidator,
} from "@causeway/runner/anndata";
import { prepareMergedDataset } from "@causeway/runner/inputs";
import { SymbolTable } from "@causeway/runner/symbols";

const run = promisify(execFile);

/** Median seconds of anndata.read_h5ad(path) over 3 runs after a warm-up, or why it is missing. */
async function pythonRead(path: string): Promise<{ seconds: number; version: string } | { error: string }> {
  const script = `
import sys, time, statistics
import anndata
p = sys.argv[1]
anndata.read_h5ad(p)
ts = []
for _ in range(3):
    t0 = time.perf_counter(); a = anndata.read_h5ad(p); ts.append(time.perf_counter() - t0)
print(anndata.__version__, statistics.median(ts))`;
  try {
    const { stdout } = await run("/usr/bin/python3", ["-c", script, path], { timeout: 120_000 });
    const [version, s] = stdout.trim().split(/\s+/);
    const seconds = Number(s);
    return Number.isFinite(seconds)
      ? { seconds, version: version! }
      : { error: `unexpected output: ${stdout.slice(0, 200)}` };
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stderr?: string };
    if (err.code === "ENOENT") return { error: "/usr/bin/python3 not installed" };
    return {
      error: /No module named 'anndata'/.test(err.stderr ?? "")
        ? "python3-anndata not installed"
        : (err.stderr ?? err.message).slice(-200),
    };
  }
}

export const suite: BenchSuite = {
  name: "anndata",
  async run(): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    for (const [label, file] of [
      ["Kang PBMC merged, 1,556 × 1,267, 585k nnz", "kang2018_ifnb_pbmc.h5ad"],
      ["Kang CD14+ merged, 400 × 1,267, 191k nnz", "kang2018_ifnb_cd14mono.h5ad"],
    ] as const) {
      const path = join(KANG_DIR, file);
      const seconds = await timeIt(() => readAnnData(path, readLimits(null)));
      const ref = await pythonRead(path);
      rows.push({
        name: `readAnnData (h5wasm), ${label}`,
        seconds,
        reference: "anndata.read_h5ad (python3-anndata)",
        referenceSeconds: "seconds" in ref ? ref.seconds : null,
        note:
          "seconds" in ref ? `anndata ${ref.version}, timed in-process` : `reference missing: ${ref.error}`,
      });
    }
    const cd14 = join(KANG_DIR, "kang2018_ifnb_cd14mono.h5ad");
    await warmUpUploadValidator();
    const validate = await timeIt(() => validateUpload(cd14, { maxObs: 1000 }), 5);
    await closeUploadValidator();
    rows.push({
      name: "validateUpload (worker, warm), Kang CD14+",
      seconds: validate,
      reference: "none",
      referenceSeconds: null,
      note: "metadata-only pre-check (contract rule 3(d))",
    });
    const symbols = await SymbolTable.load(HGNC_DIR);
    const prepare = await timeIt(() => prepareMergedDataset(cd14, { symbols, maxObsPerArm: 1000 }));
    rows.push({
      name: "prepareMergedDataset, Kang CD14+ (read + §3 checks + pseudo-bulk)",
      seconds: prepare,
      reference: "none",
      referenceSeconds: null,
    });
    return rows;
  },
};
