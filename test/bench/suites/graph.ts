/**
 * Causal-graph image (model.md §11): what the dpi costs (the realistic STAT1 graph at 600 vs
 * 200 dpi, the on-demand route's range) and where the time goes (selection + ELK layout, which
 * do not depend on the dpi, vs drawing + PNG encoding), also for a graph at the 250-node cap.
 */
import type { BenchRow, BenchSuite } from "../bench.ts";
import { timeIt } from "../bench.ts";
import { interferonInputs, largeInputs } from "@causeway/runner/testing";
import { buildScene, drawScene, imageSize, renderCausalGraph } from "../../../runner/src/graph/render.ts";

export const suite: BenchSuite = {
  name: "graph",
  async run(): Promise<BenchRow[]> {
    const stat1 = interferonInputs();
    const render = (dpi: number) => () => renderCausalGraph(stat1, { topNDegs: 20, dpi });
    const at200 = await timeIt(render(200));
    const at600 = await timeIt(render(600));
    const scene = await buildScene(stat1, 20);
    const size = (dpi: number): string => {
      const { width, height } = imageSize(scene, dpi);
      return `${width}×${height} px`;
    };
    const layout = await timeIt(() => buildScene(stat1, 20));
    const draw = await timeIt(() => drawScene(scene, 200));

    const large = largeInputs(400);
    const capped = await buildScene(large, 400);
    const largeLayout = await timeIt(() => buildScene(large, 400), 1);
    const largeDraw = await timeIt(() => drawScene(capped, 200), 1);
    const nodes = `${capped.layout.nodes.length} nodes, ${capped.layout.edges.length} edges`;

    return [
      {
        name: "render STAT1 graph (20 DEGs) at 600 dpi",
        seconds: at600,
        reference: "same at 200 dpi",
        referenceSeconds: at200,
        note: `${size(600)} vs ${size(200)}: 9× the pixels`,
      },
      {
        name: "STAT1 graph: select + ELK layout + frame",
        seconds: layout,
        reference: "draw + PNG encode at 200 dpi",
        referenceSeconds: draw,
        note: `${scene.layout.nodes.length} nodes, ${scene.layout.edges.length} edges`,
      },
      {
        name: "capped graph (400 DEGs → 250 nodes): select + ELK layout",
        seconds: largeLayout,
        reference: "draw + PNG encode at 200 dpi",
        referenceSeconds: largeDraw,
        note: `${nodes}; ${imageSize(capped, 200).width}×${imageSize(capped, 200).height} px`,
      },
    ];
  },
};
