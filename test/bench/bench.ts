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
  /**
   * For figures that are not times (requests per second, jobs per minute, megabytes): the
   * printed values and their ratio, measured / reference. `seconds` is then informational.
   */
  figure?: { measured: string; reference: string; ratio: number | null };
}

export interface BenchSuite {
  name: string;
  /** Runs only when named (`npm run bench <name>`): it needs more than the machine (a cluster harness). */
  optIn?: boolean;
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

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor(s.length / 2)]!;
}
