/**
 * Writes sample images of the fixtures for eyeballing: `node runner/test/graph-samples.ts [dir]`
 * (default /tmp/causeway-graph-samples).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { edgeCaseInputs, interferonInputs, largeInputs, toyInputs } from "./fixtures/graph.ts";
import { parseCausalGraphInputs } from "../src/graph/inputs.ts";
import { renderCausalGraph } from "../src/graph/render.ts";

const dir = process.argv[2] ?? "/tmp/causeway-graph-samples";
await mkdir(dir, { recursive: true });
const cases = [
  ["toy", toyInputs(), 3],
  ["stat1", interferonInputs(), 20],
  ["large", largeInputs(400), 400],
  ["edge-cases", edgeCaseInputs(), 10],
] as const;
for (const [name, inputs, topNDegs] of cases) {
  const valid = parseCausalGraphInputs(inputs);
  for (const dpi of [72, 200, 600]) {
    const png = await renderCausalGraph(valid, { topNDegs, dpi });
    await writeFile(join(dir, `${name}-${dpi}dpi.png`), png);
    process.stdout.write(`${name}-${dpi}dpi.png ${png.length} bytes\n`);
  }
}
