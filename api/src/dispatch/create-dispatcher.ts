/** Picks the Dispatcher implementation the configuration asks for (the dispatch part of the context). */
import type { Config } from "../config.ts";
import type { Dispatcher } from "./dispatcher.ts";
import { LocalExecutor, type LocalExecutorOptions } from "./local-executor.ts";

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
  return new LocalExecutor({
    concurrency: config.dispatch.concurrency,
    runnerEntry: config.dispatch.runnerEntry,
    ...hooks,
  });
}
