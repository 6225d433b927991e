/** Picks the Dispatcher implementation the configuration asks for (the dispatch part of the context). */
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Config } from "../config.ts";
import type { Dispatcher } from "./dispatcher.ts";
import { LocalExecutor, type LocalExecutorOptions } from "./local-executor.ts";
import { runnersTmpDir } from "../services/submission/work-dirs.ts";

export type LocalHooks = Pick<
  LocalExecutorOptions,
  "onStart" | "onExit" | "callbackUrl" | "storageEnv" | "callbackSecret"
>;

export async function createDispatcher(config: Config, hooks: LocalHooks): Promise<Dispatcher> {
  if (config.dispatch.kind === "kubernetes") {
    // ── CLUSTER MODE ─────────────────────────────────────────────────────────────────────
    // kubernetes.ts is the operator engineer's (custom resources; status mirrored with
    // server-side apply). Imported only here, so embedded mode never loads @kubernetes/client-node.
    const mod = await import("./kubernetes.ts");
    return mod.createKubernetesDispatcher(config);
  }
  const { concurrency, runnerEntry, pool } = config.dispatch;
  await mkdir(runnersTmpDir(config.dataDir), { recursive: true, mode: 0o700 });
  // The pool's entry lives beside the runner's (a custom runner entry without one runs per job).
  const poolEntry = join(dirname(runnerEntry), "jobs", "pool-host.ts");
  return new LocalExecutor({
    concurrency,
    runnerEntry,
    ...hooks,
    // Runner work folders where a start after a crash finds them (services/submission/work-dirs.ts).
    extraEnv: { TMPDIR: runnersTmpDir(config.dataDir) },
    ...(pool.enabled && existsSync(poolEntry)
      ? {
          pool: {
            entry: poolEntry,
            maxJobs: pool.recycleJobs,
            idleMs: pool.idleSeconds * 1000,
            // Replaced when a job leaves its heap half again as large as after its first job.
            heapGrowth: 1.5,
            jobTimeoutMs: config.jobStallSeconds * 1000,
            preloadModel: config.model.defaultVersion ?? config.model.versions[0]?.version ?? "v1",
          },
        }
      : {}),
  });
}
