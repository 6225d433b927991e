/**
 * Worker thread that renders status bodies of completed predictions (status-body-render.ts)
 * off the main thread: a full preview is over a million matrix cells, and rendering it inline
 * would stall every other request (and runner callbacks) while it runs.
 */
import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import { renderStatusBody, type RenderInput, type Rendered } from "./status-body-render.ts";

export type { StatusSizes } from "./status-body-render.ts";

export type RenderRequest = RenderInput & { id: number };

export type RenderResponse = Rendered & { id: number };

// Rendering is never urgent next to the jobs and requests sharing the machine's cores. On Linux,
// setpriority(0) applies to the calling thread only: this worker, not the API's event loop.
try {
  setPriority(19);
} catch {
  // Not permitted here: run at normal priority.
}

parentPort?.on("message", (req: RenderRequest) => {
  renderStatusBody(req).then(
    (res) => parentPort!.postMessage({ ...res, id: req.id }, res.ok ? [res.body.buffer] : []),
    (err: unknown) =>
      parentPort!.postMessage({
        id: req.id,
        ok: false,
        message: err instanceof Error ? err.message : String(err),
      }),
  );
});
