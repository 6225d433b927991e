/**
 * Layer of every node (model.md §11 "Layout"): the target alone in the first layer, the DEGs
 * in the last, each intermediary at its shortest distance from the target over displayed edges.
 */
import type { GraphSelection } from "./select.ts";

/** Layer assignment of the displayed nodes. */
export interface Layering {
  /** Layer index (0 = target) by entity id. */
  layerOf: Map<string, number>;
  /** Number of layers: 1 when nothing but the target is shown. */
  count: number;
}

/** Assigns layers by breadth-first search from the target. */
export function assignLayers(selection: GraphSelection): Layering {
  const next = new Map<string, string[]>();
  for (const e of selection.edges) {
    const list = next.get(e.source);
    if (list) list.push(e.target);
    else next.set(e.source, [e.target]);
  }
  const distance = new Map<string, number>([[selection.target.id, 0]]);
  const queue = [selection.target.id];
  for (let head = 0; head < queue.length; head++) {
    const id = queue[head]!;
    for (const to of next.get(id) ?? []) {
      if (distance.has(to)) continue;
      distance.set(to, distance.get(id)! + 1);
      queue.push(to);
    }
  }

  let deepestIntermediary = 0;
  for (const n of selection.nodes) {
    if (n.kind === "intermediary") deepestIntermediary = Math.max(deepestIntermediary, distance.get(n.id)!);
  }
  const hasDegs = selection.nodes.some((n) => n.kind === "deg");
  const degLayer = deepestIntermediary + 1;
  const layerOf = new Map<string, number>();
  for (const n of selection.nodes) {
    layerOf.set(n.id, n.kind === "deg" ? degLayer : n.kind === "target" ? 0 : distance.get(n.id)!);
  }
  return { layerOf, count: hasDegs ? degLayer + 1 : 1 };
}
