/**
 * Benchmark plumbing for `npm run bench`: every figure is measured next to a reference run
 * on the same machine in the same session, and reported as a ratio (never as an absolute
 * pass/fail threshold, which would depend on the machine).
 */
export interface BenchRow {
  /** What was measured, e.g. "influence bundle, 2 worker threads". */
  name: string;
  seconds: number;
  /** What it is compared with, e.g. "influence bundle, 1 thread" or "python anndata read". */
  reference: string;
  referenceSeconds: number | null;
  /** Free text: sizes, goals from model.md §15.4, why a reference is missing. */
  note?: string;
}

export interface BenchSuite {
  name: string;
  run(): Promise<BenchRow[]>;
}

/** Median wall time of `repeats` runs after one warm-up run. */
export async function timeIt(fn: () => unknown, repeats = 3): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    await fn();
    times.push((performance.now() - t0) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}
