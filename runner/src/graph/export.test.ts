/**
 * The causal graph's Cytoscape-ready files read back the way tools read them: GraphML through an
 * XML parser, CX2 checked against the structure of the CX2 specification, SIF split as Cytoscape
 * splits it; each compared with what the PNG draws, on the toy graph of model.md §17.2 and on the
 * Kang STAT1 result (a real job on the default network).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, validate } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ARTIFACTS } from "@causeway/contract";
import { toyInputs } from "../../test/fixtures/graph.ts";
import { kangValidationResult } from "../../test/fixtures/kang-result.ts";
import { exportCausalGraph, exportGraph, toCx2, toGraphml, toSif } from "./export.ts";
import { InvalidGraphInputs, parseCausalGraphInputs, type CausalGraphInputs } from "./inputs.ts";
import { buildScene } from "./render.ts";

/** A node or edge as every format must give it back. */
interface Read {
  nodes: Map<string, { name: string; molecule: string; role: string; log2fc: number | null }>;
  edges: Map<string, { interaction: string; sign: number; layer: string; score: number }>;
}

// --- CX2, after the specification (cytoscape.org/cx/cx2/specification): an array of aspects,
// the descriptor first and the status last, one key per aspect, integer element ids, attributes
// under `v` declared with a CX2 type in attributeDeclarations, and metaData counts that match.
const CX2_TYPES = ["string", "long", "integer", "double", "boolean"] as const;
const Declarations = z.record(z.string(), z.object({ d: z.enum(CX2_TYPES), a: z.string().optional() }));
const Cx2Document = z.tuple(
  [z.object({ CXVersion: z.literal("2.0"), hasFragments: z.boolean() }).strict()],
  z.record(z.string(), z.array(z.unknown())).refine((o) => Object.keys(o).length === 1, "one key per aspect"),
);
const Cx2Aspects = z.object({
  metaData: z.array(z.object({ name: z.string(), elementCount: z.number().int().min(0) })),
  attributeDeclarations: z
    .array(z.object({ networkAttributes: Declarations, nodes: Declarations, edges: Declarations }).partial())
    .length(1),
  networkAttributes: z.array(z.record(z.string(), z.unknown())).length(1),
  nodes: z.array(z.object({ id: z.number().int(), v: z.record(z.string(), z.unknown()) })),
  edges: z.array(
    z.object({
      id: z.number().int(),
      s: z.number().int(),
      t: z.number().int(),
      v: z.record(z.string(), z.unknown()),
    }),
  ),
  status: z.array(z.object({ error: z.string(), success: z.literal(true) })).length(1),
});

const ofType = (value: unknown, d: (typeof CX2_TYPES)[number]): boolean =>
  d === "string"
    ? typeof value === "string"
    : d === "boolean"
      ? typeof value === "boolean"
      : d === "double"
        ? typeof value === "number"
        : Number.isInteger(value);

function readCx2(text: string): Read {
  const doc = Cx2Document.parse(JSON.parse(text));
  const aspects = Object.assign({}, ...doc.slice(1)) as Record<string, unknown>;
  expect(Object.keys(doc.at(-1)!)).toEqual(["status"]);
  const cx = Cx2Aspects.parse(aspects);
  for (const m of cx.metaData) expect((aspects[m.name] as unknown[]).length).toBe(m.elementCount);
  const decl = cx.attributeDeclarations[0]!;
  const checkValues = (v: Record<string, unknown>, declared: z.infer<typeof Declarations> | undefined) => {
    for (const [k, value] of Object.entries(v)) {
      expect(declared?.[k], `attribute ${k} is declared`).toBeDefined();
      expect(ofType(value, declared![k]!.d), `${k}=${String(value)} is a ${declared![k]!.d}`).toBe(true);
    }
  };
  checkValues(cx.networkAttributes[0]!, decl.networkAttributes);
  const byId = new Map<number, string>();
  const read: Read = { nodes: new Map(), edges: new Map() };
  for (const n of cx.nodes) {
    checkValues(n.v, decl.nodes);
    expect(byId.has(n.id)).toBe(false);
    const v = n.v as { entity_id: string; name: string; molecule: string; role: string; log2fc?: number };
    byId.set(n.id, v.entity_id);
    read.nodes.set(v.entity_id, {
      name: v.name,
      molecule: v.molecule,
      role: v.role,
      log2fc: v.log2fc ?? null,
    });
  }
  const edgeIds = new Set<number>();
  for (const e of cx.edges) {
    checkValues(e.v, decl.edges);
    expect(edgeIds.has(e.id)).toBe(false);
    edgeIds.add(e.id);
    const v = e.v as { interaction: string; sign: number; layer: string; score: number };
    read.edges.set(`${byId.get(e.s)!}>${byId.get(e.t)!}`, v);
  }
  return read;
}

// --- GraphML through fast-xml-parser, keys mapped to their attr.name as Cytoscape's reader does.
function readGraphml(text: string): Read {
  expect(validate(text)).toBe(true);
  const doc = parse(text, {
    ignoreAttributes: false,
    attributeNamePrefix: "",
    parseAttributeValue: false,
    parseNodeValue: false,
    arrayMode: (tag: string) => ["key", "node", "edge", "data"].includes(tag),
  }) as {
    graphml: {
      key: { id: string; for: string; "attr.name": string; "attr.type": string }[];
      graph: { edgedefault: string; node: GraphmlElement[]; edge?: GraphmlElement[] };
    };
  };
  const root = doc.graphml;
  expect(root.graph.edgedefault).toBe("directed");
  const keys = new Map(root.key.map((k) => [k.id, k]));
  const values = (el: GraphmlElement): Record<string, string | number> =>
    Object.fromEntries(
      (el.data ?? []).map((d) => {
        const key = keys.get(d.key)!;
        // fast-xml-parser 3's arrayMode also wraps the text of an element it lists.
        const raw = d["#text"];
        const text = Array.isArray(raw) ? raw[0]! : raw;
        return [key["attr.name"], ["double", "int"].includes(key["attr.type"]) ? Number(text) : text];
      }),
    );
  const read: Read = { nodes: new Map(), edges: new Map() };
  for (const n of root.graph.node) {
    const v = values(n) as { name: string; molecule: string; role: string; log2fc?: number };
    read.nodes.set(n.id!, { name: v.name, molecule: v.molecule, role: v.role, log2fc: v.log2fc ?? null });
  }
  for (const e of root.graph.edge ?? []) {
    const v = values(e) as { interaction: string; sign: number; layer: string; score: number };
    read.edges.set(`${e.source!}>${e.target!}`, v);
  }
  return read;
}
interface GraphmlElement {
  id?: string;
  source?: string;
  target?: string;
  data?: { key: string; "#text": string | string[] }[];
}

/** SIF as Cytoscape reads it: tab-separated, `source relation target...`, a lone name is a node. */
function readSif(text: string): { nodes: Set<string>; edges: Map<string, string> } {
  const nodes = new Set<string>();
  const edges = new Map<string, string>();
  for (const line of text.split("\n").filter((l) => l !== "")) {
    const [source, relation, ...targets] = line.split("\t");
    nodes.add(source!);
    for (const t of targets) {
      nodes.add(t);
      edges.set(`${source!}>${t}`, relation!);
    }
  }
  return { nodes, edges };
}

/** Every format against the PNG's own scene: the same nodes, the same edges, the same attributes. */
async function expectSameAsPng(inputs: CausalGraphInputs, topNDegs: number): Promise<void> {
  const scene = await buildScene(inputs, topNDegs);
  const drawnNodes = scene.layout.nodes.map((n) => n.id).sort();
  const drawnEdges = scene.layout.edges.map((e) => `${e.source}>${e.target}`).sort();
  const g = exportGraph(inputs, topNDegs);
  for (const read of [readCx2(JSON.stringify(toCx2(g))), readGraphml(toGraphml(g))]) {
    expect([...read.nodes.keys()].sort()).toEqual(drawnNodes);
    expect([...read.edges.keys()].sort()).toEqual(drawnEdges);
    for (const n of scene.selection.nodes)
      expect(read.nodes.get(n.id)).toEqual({
        name: n.symbol,
        molecule: n.id.endsWith("|RNA") ? "RNA" : "protein",
        role: n.kind,
        log2fc: n.log2fc,
      });
    for (const e of scene.selection.edges)
      expect(read.edges.get(e.id)).toMatchObject({ sign: e.sign, layer: e.type, score: e.score });
  }
  const sif = readSif(toSif(g));
  expect([...sif.nodes].sort()).toEqual(drawnNodes);
  expect([...sif.edges.keys()].sort()).toEqual(drawnEdges);
}

describe("the causal graph as CX2, GraphML and SIF", () => {
  it("writes the toy graph's nodes, edges, signs and molecule types", async () => {
    await expectSameAsPng(toyInputs(), 3);
    const g = exportGraph(toyInputs(), 3);
    expect(toSif(g)).toBe(
      [
        "A|PROTEIN\tactivates\tB|PROTEIN",
        "A|PROTEIN\tinhibits\tC|PROTEIN",
        "B|PROTEIN\tupregulates-expression\tx|RNA",
        "B|PROTEIN\tupregulates-expression\ty|RNA",
        "C|PROTEIN\tdownregulates-expression\ty|RNA",
        "C|PROTEIN\tupregulates-expression\tz|RNA",
        "",
      ].join("\n"),
    );
    // z was not measured: no log2fc value rather than a made-up one.
    expect(readGraphml(toGraphml(g)).nodes.get("z|RNA")).toEqual({
      name: "z",
      molecule: "RNA",
      role: "deg",
      log2fc: null,
    });
  });

  it("keeps a lone target as a node, and escapes what XML must escape", () => {
    const inputs = { ...toyInputs(), paths: [], log2fc: {}, model_version: `a<b & "c"` };
    const g = exportGraph(inputs, 3);
    expect(toSif(g)).toBe("A|PROTEIN\n");
    const xml = toGraphml(g);
    expect(validate(xml)).toBe(true);
    expect(xml).toContain("a&lt;b &amp; &quot;c&quot;");
  });

  it("refuses invalid stored inputs as the PNG route does", () => {
    expect(() => exportCausalGraph({ version: 1 }, { topNDegs: 20, format: "cx2" })).toThrow(
      InvalidGraphInputs,
    );
    expect(exportCausalGraph(toyInputs(), { topNDegs: 1, format: "graphml" })).toMatchObject({
      contentType: "application/graphml+xml",
      extension: "graphml",
    });
  });
});

describe("the Kang STAT1 graph", () => {
  let dir: string;
  let inputs: CausalGraphInputs;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "causeway-graph-export-"));
    const kang = await kangValidationResult(dir, "out");
    const stored = await kang.store.get(kang.files[ARTIFACTS.causalGraphInputs]!);
    inputs = parseCausalGraphInputs(JSON.parse(stored.toString("utf8")));
  }, 180_000);
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it.each([20, 5])("exports every node and edge of the PNG of the top %i DEGs", async (topN) => {
    await expectSameAsPng(inputs, topN);
    const g = exportGraph(inputs, topN);
    expect(g.nodes.length).toBeGreaterThan(topN);
    // Both layers and both molecule types are there, and at least one inhibiting or unsigned edge.
    expect(new Set(g.edges.map((e) => e.type))).toEqual(new Set(["signaling", "transcriptional"]));
    expect(new Set(g.nodes.map((n) => n.molecule))).toEqual(new Set(["protein", "RNA"]));
    expect(g.nodes.find((n) => n.kind === "target")).toMatchObject({
      id: "STAT1|PROTEIN",
      molecule: "protein",
    });
  });
});
