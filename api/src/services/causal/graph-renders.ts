/**
 * On-demand causal graphs (service-spec §4.8) as accounted work: each render runs in the graph
 * worker thread (runner-pieces.ts) under the heavy-read gate (limits/work-gate.ts), and its PNG
 * is kept by request (prediction, stored inputs, top_n_degs, dpi), so repeats and reads arriving
 * together cost one render and no slot.
 */
import { WorkGate, underGate, type HeavyReadLimits } from "../../limits/work-gate.ts";
import type { RunnerPieces } from "../../runner-pieces.ts";
import { RENDER_IDLE_MS, RenderCache } from "../status/render-cache.ts";

export class GraphRenders {
  private readonly runner: RunnerPieces;
  readonly gate: WorkGate;
  private readonly cache: RenderCache<Buffer>;

  constructor(runner: RunnerPieces, limits: HeavyReadLimits) {
    this.runner = runner;
    this.gate = new WorkGate(limits);
    this.cache = new RenderCache<Buffer>({
      maxBytes: limits.cacheBytes,
      idleMs: RENDER_IDLE_MS,
      sizeOf: (png) => png.length,
    });
  }

  /**
   * The PNG of one request. `inputsKey` names the stored inputs object (a re-run writes another);
   * `load` reads its bytes, only when a render is needed, inside the slot.
   */
  render(
    accountId: string,
    predictionId: string,
    inputsKey: string,
    options: { topNDegs: number; dpi: number },
    load: () => Promise<Uint8Array>,
  ): Promise<Buffer> {
    const key = JSON.stringify([predictionId, inputsKey, options.topNDegs, options.dpi]);
    return this.cache.get(key, () =>
      underGate(this.gate, accountId, async () => this.runner.renderCausalGraph(await load(), options)),
    );
  }

  close(): void {
    this.cache.clear();
  }
}
