/**
 * Worker thread that renders on-demand causal-graph PNGs (service-spec §4.8). A large graph at
 * 600 dpi is seconds of drawing and over a hundred megabytes of pixels: on the event loop it
 * stalled every request of every tenant. Here it runs beside the event loop at the lowest CPU
 * priority, and the replay inputs are parsed here too (they arrive as the stored bytes).
 */
import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";

export interface GraphRenderRequest {
  id: number;
  /** causal_graph_inputs.json as stored. */
  inputs: Uint8Array;
  topNDegs: number;
  dpi: number;
}

export type GraphRenderResponse =
  | { id: number; ok: true; png: Uint8Array }
  | { id: number; ok: false; invalidInputs: boolean; message: string };

// On Linux, setpriority(0) applies to the calling thread only: this worker, not the event loop.
// Before the renderer's modules (canvas) load, so loading them already yields to requests.
try {
  setPriority(19);
} catch {
  // Not permitted here: run at normal priority.
}
const { parseCausalGraphInputsText, renderCausalGraph } = await import("@causeway/runner/graph");

async function handle(req: GraphRenderRequest): Promise<GraphRenderResponse> {
  try {
    const inputs = parseCausalGraphInputsText(Buffer.from(req.inputs).toString("utf8"));
    const rendered = await renderCausalGraph(inputs, { topNDegs: req.topNDegs, dpi: req.dpi });
    // A copy of its own, so its memory moves to the API's thread instead of being copied there
    // (canvas's buffer may not be transferable).
    return { id: req.id, ok: true, png: new Uint8Array(rendered) };
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    return { id: req.id, ok: false, invalidInputs: e.name === "InvalidGraphInputs", message: e.message };
  }
}

parentPort?.on("message", (req: GraphRenderRequest) => {
  void handle(req).then((res) => parentPort!.postMessage(res, res.ok ? [res.png.buffer as ArrayBuffer] : []));
});
