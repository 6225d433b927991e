import { largeInputs } from "./fixtures.ts";
import { selectGraph } from "./select.ts";
import { layoutGraph } from "./layout.ts";
const sel = selectGraph(largeInputs(400), 400);
const sizes = new Map(sel.nodes.map((n) => [n.id, { width: 60, height: 24 }]));
const t = performance.now();
await layoutGraph(sel, sizes);
console.log("layout ms", (performance.now() - t).toFixed(0), sel.nodes.length, sel.edges.length);
