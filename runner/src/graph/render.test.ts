import { createCanvas, loadImage, type Image } from "@napi-rs/canvas";
import { describe, expect, it } from "vitest";
import { interferonInputs, largeInputs, toyInputs } from "../../test/fixtures/graph.ts";
import type { CausalGraphInputs } from "./inputs.ts";
import {
  buildScene,
  drawScene,
  effectiveDpi,
  MAX_PIXELS,
  imageSize,
  InvalidRenderOptions,
  renderCausalGraph,
  type Scene,
} from "./render.ts";
import { FONT_PT, font, GEOMETRY, nodeFill } from "./style.ts";
import { textWidth } from "./text.ts";

/** A chain target → P1 → … → P(layers−2) fanning out to `degs` DEGs from the last relay. */
function chain(layers: number, degs: number): CausalGraphInputs {
  const relays = Array.from({ length: layers - 2 }, (_, i) => `P${i + 1}|PROTEIN`);
  const degIds = Array.from({ length: degs }, (_, i) => `G${String(i).padStart(2, "0")}|RNA`);
  return {
    version: 1,
    target: "T|PROTEIN",
    model_version: "v1",
    options: { min_path_probability: 1e-4, min_path_fraction: 0.1, max_path_length: 10 },
    degs: degIds.map((id, i) => ({ id, score_deg_given_target: 0.1 / (i + 1) })),
    paths: degIds.map((id, i) => ({
      deg: id,
      nodes: ["T|PROTEIN", ...relays, id],
      score_path_given_target: 0.05 / (i + 1),
      edge_signs: [...relays.map(() => 1 as const), -1],
      edge_types: [...relays.map(() => "signaling" as const), "transcriptional"],
    })),
    log2fc: {},
  };
}

async function decode(png: Buffer): Promise<Image> {
  return loadImage(png);
}

/** RGB of the decoded image at a point given in base px of the scene. */
async function pixel(png: Buffer, dpi: number, x: number, y: number): Promise<[number, number, number]> {
  const image = await decode(png);
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext("2d");
  ctx.drawImage(image, 0, 0);
  const s = dpi / 100;
  const d = ctx.getImageData(Math.round(x * s), Math.round(y * s), 1, 1).data;
  return [d[0]!, d[1]!, d[2]!];
}

const hexRgb = (hex: string): [number, number, number] =>
  [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];

describe("renderCausalGraph", () => {
  it("produces a PNG that decodes, at the size of its scene and dpi", async () => {
    for (const dpi of [72, 200, 600]) {
      const png = await renderCausalGraph(toyInputs(), { topNDegs: 3, dpi });
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      const image = await decode(png);
      const scene = await buildScene(toyInputs(), 3);
      expect({ width: image.width, height: image.height }).toEqual(imageSize(scene, dpi));
    }
  });

  it("gives identical bytes for identical inputs, also after a JSON round trip", async () => {
    const inputs = interferonInputs();
    const a = await renderCausalGraph(inputs, { topNDegs: 20, dpi: 100 });
    const b = await renderCausalGraph(JSON.parse(JSON.stringify(inputs)) as CausalGraphInputs, {
      topNDegs: 20,
      dpi: 100,
    });
    expect(a.equals(b)).toBe(true);
  });

  it("follows the size rule: 100 px per layer step, 40 px per node of the largest layer, ×dpi/100", async () => {
    const base = await buildScene(chain(6, 14), 14);
    const wider = await buildScene(chain(7, 14), 14);
    const taller = await buildScene(chain(6, 15), 15);
    expect(base.layout.layerCount).toBe(6);
    expect(base.layout.layerStep).toBe(GEOMETRY.layerStep);
    expect(base.layout.height).toBe(14 * GEOMETRY.rowPitch);
    for (const dpi of [100, 200, 600]) {
      const s = dpi / 100;
      expect(imageSize(wider, dpi).width - imageSize(base, dpi).width).toBe(100 * s);
      expect(imageSize(wider, dpi).height).toBe(imageSize(base, dpi).height);
      expect(imageSize(taller, dpi).height - imageSize(base, dpi).height).toBe(40 * s);
      expect(imageSize(taller, dpi).width).toBe(imageSize(base, dpi).width);
    }
    const at72 = imageSize(wider, 72).width - imageSize(base, 72).width;
    expect(Math.abs(at72 - 72)).toBeLessThanOrEqual(1);
    expect(imageSize(base, 600).width).toBe(imageSize(base, 100).width * 6);
  });

  it("draws the selected top DEGs and names N in the title", async () => {
    const scene = await buildScene(interferonInputs(), 5);
    expect(scene.frame.title.text).toBe("Causal paths from STAT1 to the top 5 impacted DEGs");
    expect(scene.layout.nodes.filter((n) => n.kind === "deg")).toHaveLength(5);
    const all = await buildScene(interferonInputs(), 10_000);
    expect(all.frame.title.text).toBe(
      `Causal paths from STAT1 to the top ${interferonInputs().degs.length} impacted DEGs`,
    );
  });

  it("caps a 400-DEG graph at 250 nodes and says how many paths were omitted", async () => {
    const inputs = largeInputs(400);
    const scene = await buildScene(inputs, 400);
    expect(scene.layout.nodes.length).toBeLessThanOrEqual(250);
    const omitted = scene.selection.pathsOmitted;
    expect(omitted).toBeGreaterThan(0);
    const caption = scene.frame.caption.lines.join(" ");
    expect(caption).toContain(`${omitted} paths omitted`);
    expect(caption).toContain(`${scene.selection.pathsShown} paths and 209 DEGs shown`);
    const image = await decode(await drawScene(scene, 72));
    expect(image.height).toBe(imageSize(scene, 72).height);
  });

  it("draws the capped graph at 600 dpi within the pixel budget, at a lower effective dpi", async () => {
    const scene = await buildScene(largeInputs(400), 400);
    const requested = imageSize(scene, 600);
    expect(requested.width * requested.height).toBeGreaterThan(MAX_PIXELS);
    const dpi = effectiveDpi(scene, 600);
    expect(dpi).toBeLessThan(600);
    const drawn = imageSize(scene, dpi);
    expect(drawn.width * drawn.height).toBeLessThanOrEqual(MAX_PIXELS);
    expect(effectiveDpi(scene, 72)).toBe(72);
  });

  it("states the model version and thresholds in the caption", async () => {
    const caption = (await buildScene(toyInputs(), 3)).frame.caption.lines.join(" ");
    for (const part of [
      "model_version toy",
      "min_path_probability 0.0001",
      "min_path_fraction 0.1",
      "max_path_length 6",
      "4 paths and 3 DEGs shown",
    ]) {
      expect(caption).toContain(part);
    }
    expect(caption).not.toContain("omitted");
  });

  it("fills nodes by fold change: grey when unmeasured, on the scale otherwise", async () => {
    const dpi = 200;
    const scene: Scene = await buildScene(toyInputs(), 3);
    expect(scene.colourLimit).toBe(2.4);
    const png = await drawScene(scene, dpi);
    const at = async (id: string): Promise<[number, number, number]> => {
      const n = scene.layout.nodes.find((node) => node.id === id)!;
      // Inside the shape, left of the label.
      return pixel(png, dpi, scene.frame.plot.x + n.x - n.size.width / 2 + 4, scene.frame.plot.y + n.y);
    };
    expect(await at("z|RNA")).toEqual(hexRgb("#cccccc"));
    expect(await at("y|RNA")).toEqual(hexRgb(nodeFill(-1.7, 2.4)));
    expect(await at("x|RNA")).toEqual(hexRgb(nodeFill(2.4, 2.4)));
  });

  it("draws backward and same-layer edges, and a target without paths", async () => {
    const inputs: CausalGraphInputs = {
      ...toyInputs(),
      paths: [
        {
          deg: "x|RNA",
          nodes: ["A|PROTEIN", "B|PROTEIN", "C|PROTEIN", "D|PROTEIN", "x|RNA"],
          score_path_given_target: 0.01,
          edge_signs: [1, 1, -1, 1],
          edge_types: ["signaling", "signaling", "signaling", "transcriptional"],
        },
        {
          deg: "y|RNA",
          nodes: ["A|PROTEIN", "D|PROTEIN", "B|PROTEIN", "y|RNA"],
          score_path_given_target: 0.02,
          edge_signs: [1, 0, 1],
          edge_types: ["signaling", "signaling", "transcriptional"],
        },
      ],
    };
    const scene = await buildScene(inputs, 3);
    const direction = Object.fromEntries(scene.layout.edges.map((e) => [e.id, e.direction]));
    expect(direction["C|PROTEIN>D|PROTEIN"]).toBe("backward");
    expect(direction["D|PROTEIN>B|PROTEIN"]).toBe("same-layer");
    expect((await decode(await drawScene(scene, 100))).width).toBe(imageSize(scene, 100).width);

    const empty = await buildScene({ ...toyInputs(), paths: [] }, 3);
    expect(empty.layout.nodes.map((n) => n.id)).toEqual(["A|PROTEIN"]);
    expect(empty.frame.caption.lines.join(" ")).toContain(
      "0 paths and 0 DEGs shown · 3 of the top 3 DEGs have no kept path",
    );
    await expect(drawScene(empty, 100)).resolves.toBeInstanceOf(Buffer);
  });

  it("sizes nodes to their labels, widening the layer step only when labels need it", async () => {
    const inputs = chain(4, 6);
    const long = "SUPERLONGSYMBOL12";
    inputs.paths = inputs.paths.map((p) => ({
      ...p,
      nodes: p.nodes.map((n) => (n === "P1|PROTEIN" ? `${long}|PROTEIN` : n)),
    }));
    const scene = await buildScene(inputs, 6);
    const { nodes, layerStep } = scene.layout;
    expect(layerStep).toBeGreaterThan(GEOMETRY.layerStep);
    for (const n of nodes) {
      const bold = n.kind === "target";
      expect(n.size.width).toBeGreaterThanOrEqual(
        textWidth(n.symbol, font(FONT_PT.label, bold)) + 2 * GEOMETRY.labelPad,
      );
      for (const m of nodes) {
        if (m === n) continue;
        if (m.layer === n.layer + 1) {
          expect(m.x - m.size.width / 2 - (n.x + n.size.width / 2)).toBeGreaterThanOrEqual(
            GEOMETRY.minLayerGap - 1e-9,
          );
        }
        if (m.layer === n.layer) expect(Math.abs(m.y - n.y)).toBeGreaterThanOrEqual(GEOMETRY.rowPitch - 1e-9);
      }
    }
    const normal = await buildScene(interferonInputs(), 20);
    expect(normal.layout.layerStep).toBe(GEOMETRY.layerStep);
  });

  it("rejects options out of range", async () => {
    for (const options of [
      { topNDegs: 0, dpi: 200 },
      { topNDegs: 10_001, dpi: 200 },
      { topNDegs: 2.5, dpi: 200 },
      { topNDegs: 20, dpi: 71 },
      { topNDegs: 20, dpi: 601 },
      { topNDegs: 20, dpi: Number.NaN },
    ]) {
      await expect(renderCausalGraph(toyInputs(), options)).rejects.toThrow(InvalidRenderOptions);
    }
    await expect(renderCausalGraph(toyInputs(), { topNDegs: 20, dpi: 601 })).rejects.toThrow(/dpi/);
  });
});
