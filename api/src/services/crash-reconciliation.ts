/**
 * What a process that died (kill -9, OOM, power) left behind, reconciled when the embedded
 * server starts, before it dispatches anything again. Only one server runs on a data directory
 * at a time, so everything older than this process that no live request owns belongs to a dead one:
 *
 * - quota units charged to submissions whose prediction row was never written are refunded
 *   (quota_charges rows older than this process);
 * - upload folders and runner work folders (copies of client files) under the data directory's
 *   work folder are removed (services/work-dirs.ts);
 * - partial outputs of the attempts that were running are deleted, so a resumed job's new
 *   attempt starts from an empty output prefix and a failed one leaves nothing behind;
 * - Idempotency-Key claims of requests that never recorded a response are freed at once
 *   instead of after the request timeout;
 * - with the filesystem store, which lists a folder cheaply, the outputs of attempts a
 *   finished job abandoned (a runner killed mid-job, then a retry that finished) are deleted:
 *   only the attempt whose files the job lists stays.
 *
 * In production (PostgreSQL shared by replicas) none of this runs: another replica's requests
 * are alive; there the claim takeover after the request timeout and the stall sweeper apply.
 */
import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { JobSpec, jobOutputFolder } from "@causeway/contract";
import { FsObjectStore } from "@causeway/runner/storage";
import type { AppContext } from "../context.ts";
import { refundAbandonedCharges } from "../db/accounts.ts";
import { releaseDeadClaims } from "../db/idempotency.ts";
import type { Queryable } from "../db/database.ts";
import { finishedResultFiles, listUnfinished } from "../db/jobs.ts";
import { runnersTmpDir, uploadsDir } from "./work-dirs.ts";

export interface Reconciled {
  refundedUnits: number;
  removedFolders: number;
  clearedOutputs: number;
  freedClaims: number;
  /** Output folders of abandoned attempts of finished jobs, deleted. */
  sweptAttempts: number;
}

/** When this process started (a dead process's leftovers are all older). */
export function processStartedAt(): Date {
  return new Date(Date.now() - process.uptime() * 1000);
}

export async function reconcileAfterCrash(
  ctx: AppContext,
  log: { warn(obj: object, msg: string): void },
  startedAt: Date = processStartedAt(),
): Promise<Reconciled> {
  const refunds = await refundAbandonedCharges(ctx.db, startedAt);
  const removedFolders =
    (await removeOlder(uploadsDir(ctx.config.dataDir), startedAt)) +
    (await removeOlder(runnersTmpDir(ctx.config.dataDir), startedAt));
  const clearedOutputs = await clearPartialOutputs(ctx);
  const freedClaims = await releaseDeadClaims(ctx.db, startedAt);
  const sweptAttempts =
    ctx.store instanceof FsObjectStore ? await sweepAbandonedAttempts(ctx.store, ctx.db) : 0;
  const result = {
    refundedUnits: refunds.reduce((n, r) => n + r.refunded, 0),
    removedFolders,
    clearedOutputs,
    freedClaims,
    sweptAttempts,
  };
  if (Object.values(result).some((n) => n > 0))
    log.warn(result, "reconciled what a previous process left behind");
  return result;
}

/** Removes the entries of `dir` last changed before `before`; how many. */
async function removeOlder(dir: string, before: Date): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0; // never created: nothing to reconcile
  }
  let removed = 0;
  for (const name of names) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (!info || info.mtime >= before) continue;
    await rm(path, { recursive: true, force: true });
    removed++;
  }
  return removed;
}

/** Deletes the output prefix of every unfinished job: whatever is there is a dead attempt's. */
async function clearPartialOutputs(ctx: AppContext): Promise<number> {
  let cleared = 0;
  for (const kind of ["prediction", "causal_analysis"] as const) {
    for (const job of await listUnfinished(ctx.db, kind)) {
      const spec = JobSpec.safeParse(job.spec);
      if (!spec.success) continue;
      await ctx.store.deletePrefix(jobOutputFolder(spec.data.output_prefix));
      cleared++;
    }
  }
  return cleared;
}

/** Where jobs write their outputs: `results/<job folder>/<attempt>/<file>` (output_prefix + attempt). */
const RESULTS = "results";

/**
 * Deletes the attempt folders of finished jobs that their result files do not point into. One
 * listing of the results folder finds the jobs with more than one attempt (rare: a retry after a
 * crash), and only those are looked up. Jobs still unfinished were cleared above.
 */
async function sweepAbandonedAttempts(store: FsObjectStore, db: Queryable): Promise<number> {
  let jobs: string[];
  try {
    jobs = await readdir(store.pathOf(RESULTS));
  } catch {
    return 0; // nothing written yet
  }
  const attempts = new Map<string, string[]>();
  for (const job of jobs) {
    const prefix = `${RESULTS}/${job}`;
    const names = await readdir(store.pathOf(prefix)).catch(() => []);
    if (names.length > 1) attempts.set(prefix, names);
  }
  if (attempts.size === 0) return 0;
  const rows = await finishedResultFiles(db, [...attempts.keys()]);
  let swept = 0;
  for (const { prefix, result_files } of rows) {
    const keys = Object.values(result_files ?? {});
    // A layout this sweep does not know (files outside the job's own attempt folders): leave it.
    if (keys.some((k) => !k.startsWith(`${prefix}/`) || k.slice(prefix.length + 1).split("/").length < 2))
      continue;
    const kept = new Set(keys.map((k) => k.slice(prefix.length + 1).split("/")[0]!));
    for (const name of attempts.get(prefix) ?? []) {
      if (kept.has(name)) continue;
      await store.deletePrefix(`${prefix}/${name}/`);
      swept++;
    }
  }
  return swept;
}
