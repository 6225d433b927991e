/**
 * Starts a warm runner ahead of a job that is on its way (a submission being received): the
 * runner's start (process, modules, model) overlaps the upload and its checks instead of
 * following them. Only the local executor has runners to warm; the pool lets an unused runner
 * go after its idle period.
 */
import type { Dispatcher } from "./dispatcher.ts";
import { LocalExecutor } from "./local-executor.ts";
import { ModelGate } from "./model-gate.ts";

export function prewarmRunners(dispatcher: Dispatcher): void {
  const inner = dispatcher instanceof ModelGate ? dispatcher.inner : dispatcher;
  if (inner instanceof LocalExecutor) inner.prewarm();
}
