/**
 * Worker thread that renders status bodies of completed predictions (status-body-render.ts)
 * off the main thread: a full preview is over a million matrix cells, and rendering it inline
 * would stall every other request (and runner callbacks) while it runs.
 *
 * It also prepares the previews of a running job once its scores are written (the runner goes
 * on with the causal analysis and the graph for a while), and keeps them until the job's
 * completion render, which uses them if the artifacts it reads are still the same bytes.
 */
import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import type { Account } from "../../db/accounts.ts";
import type { ResultFileMap } from "../../db/jobs.ts";
import type { RenderInput, Rendered } from "./status-body-render.ts";

export type { StatusSizes } from "./status-body-render.ts";

export type RenderRequest =
  | (RenderInput & { id: number; kind?: "render" })
  | {
      id: number;
      kind: "prepare";
      predictionId: string;
      tier: Account["tier"];
      files: ResultFileMap;
      objects: Record<string, Uint8Array>;
    };

export type RenderResponse = (Rendered & { id: number }) | { id: number; ok: true; prepared: boolean };

// Rendering is never urgent next to the jobs and requests sharing the machine's cores. On Linux,
// setpriority(0) applies to the calling thread only: this worker, not the API's event loop.
// Before the renderer's modules load (a dynamic import): loading them takes ~0.2 s of CPU, which
// a worker started as a job writes its scores took from that job on a two-core machine.
try {
  setPriority(19);
} catch {
  // Not permitted here: run at normal priority.
}
const { PreparedPreviews, renderStatusBody } = await import("./status-body-render.ts");
const prepared = new PreparedPreviews();

async function handle(req: RenderRequest): Promise<RenderResponse> {
  if (req.kind === "prepare") {
    const ok = await prepared.prepare(req.predictionId, req.tier, req.files, req.objects);
    return { id: req.id, ok: true, prepared: ok };
  }
  return { ...(await renderStatusBody(req, prepared.take(req))), id: req.id };
}

parentPort?.on("message", (req: RenderRequest) => {
  handle(req).then(
    (res) => parentPort!.postMessage(res, "body" in res && res.ok ? [res.body.buffer] : []),
    (err: unknown) =>
      parentPort!.postMessage({
        id: req.id,
        ok: false,
        message: err instanceof Error ? err.message : String(err),
      }),
  );
});
