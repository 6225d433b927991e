/**
 * Interactome TSV parsing with the build rules of model.md §6.1 and the edge weights of §6.2.
 * The result is a deterministic graph: node ids sorted by code unit (byte order for the ASCII
 * symbols of HGNC), every node's out-edges sorted by target id.
 */
import { gunzipSync } from "node:zlib";
import { parseEntityId } from "@causeway/contract";
import type { SymbolTable } from "../symbols/index.ts";

/** `signaling` (PROTEIN→PROTEIN) or `transcriptional` (PROTEIN→RNA). */
export type EdgeType = "signaling" | "transcriptional";

/** How edge weights were assigned (§6.2); recorded in the model manifest. */
export type WeightRule = "uniform" | "dorothea_confidence";

/** One merged edge of the interactome. */
export interface NetworkEdge {
  source: string;
  target: string;
  /** +1 activation, −1 inhibition, 0 unknown or conflicting rows. */
  sign: -1 | 0 | 1;
  edgeType: EdgeType;
  /** Resource names of the merged rows, sorted, `|`-joined. */
  resource: string;
  /** Evidence items (PubMed ids, confidence tags) of the merged rows, sorted, `|`-joined. */
  evidence: string;
  /** w(u,v) of §6.2: the sum over the merged rows (1 each, or 1/0.75/0.5 by DoRothEA confidence). */
  weight: number;
  /** Number of input rows merged into this edge. */
  rows: number;
}

/** A validated network: nodes in byte order and edges grouped by source, targets ascending. */
export interface Network {
  nodeIds: string[];
  edges: NetworkEdge[];
  weightRule: WeightRule;
}

/** A network file that breaks the format or the build rules; `problems` lists a few examples. */
export class NetworkFormatError extends Error {
  readonly problems: string[];
  constructor(message: string, problems: string[] = []) {
    super(problems.length > 0 ? `${message}: ${problems.join("; ")}` : message);
    this.name = "NetworkFormatError";
    this.problems = problems;
  }
}

const REQUIRED = ["source", "target", "sign", "edge_type", "resource", "evidence"] as const;
const CONFIDENCE_WEIGHT: Record<string, number> = { A: 1, B: 0.75, C: 0.5 };
const CONFIDENCE_EVIDENCE_RE = /^confidence=([A-E])$/;
const MAX_EXAMPLES = 5;

/** Code-unit order, which equals byte order for ASCII ids (§17.1). */
export const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

interface Accumulator {
  source: string;
  target: string;
  edgeType: EdgeType;
  signs: Set<number>;
  resources: Set<string>;
  evidence: Set<string>;
  /** Confidence letter of each merged row (null where the row has none). */
  confidences: (string | null)[];
}

function decodeText(buf: Buffer): string {
  const gz = buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b;
  return (gz ? gunzipSync(buf) : buf).toString("utf8");
}

/** Best (highest-weight) confidence letter among a row's evidence items. */
function betterConfidence(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a <= b ? a : b;
}

/**
 * Parses and validates a network file (gzip or plain TSV). Drops PROTEIN self-loops, merges
 * duplicate (source, target, edge_type) rows (sign 0 when they disagree, evidence united) and
 * rejects ids that are not approved symbols of `symbols`.
 */
export function parseNetwork(content: Buffer | string, symbols: SymbolTable): Network {
  const text = typeof content === "string" ? content : decodeText(content);
  const lines = text.split(/\r?\n/);
  const header = (lines[0] ?? "").split("\t").map((c) => c.trim());
  const col = Object.fromEntries(REQUIRED.map((name) => [name, header.indexOf(name)])) as Record<
    (typeof REQUIRED)[number],
    number
  >;
  const missing = REQUIRED.filter((name) => col[name] < 0);
  if (missing.length > 0) throw new NetworkFormatError("network file lacks required columns", missing);
  const confidenceCol = header.indexOf("confidence");

  const merged = new Map<string, Accumulator>();
  const badRows: string[] = [];
  const unapproved = new Set<string>();
  let sawConfidence = false;

  for (let l = 1; l < lines.length; l++) {
    const line = lines[l]!;
    if (line.trim() === "") continue;
    const cells = line.split("\t");
    const cell = (i: number): string => (cells[i] ?? "").trim();
    const src = parseEntityId(cell(col.source));
    const tgt = parseEntityId(cell(col.target));
    const edgeType = cell(col.edge_type);
    const sign = Number(cell(col.sign));
    const rowProblem =
      !src || !tgt
        ? "ids must be SYMBOL|PROTEIN or SYMBOL|RNA"
        : edgeType !== "signaling" && edgeType !== "transcriptional"
          ? `unknown edge_type "${edgeType}"`
          : src.type !== "PROTEIN"
            ? "source must be a PROTEIN node"
            : (edgeType === "signaling") !== (tgt.type === "PROTEIN")
              ? `${edgeType} edge with a ${tgt.type} target`
              : sign !== 1 && sign !== -1 && sign !== 0
                ? `sign "${cell(col.sign)}" is not 1, -1 or 0`
                : null;
    if (rowProblem !== null || !src || !tgt || (edgeType !== "signaling" && edgeType !== "transcriptional")) {
      if (badRows.length < MAX_EXAMPLES) badRows.push(`line ${l + 1}: ${rowProblem}`);
      continue;
    }
    for (const s of [src.symbol, tgt.symbol]) if (!symbols.isApproved(s)) unapproved.add(s);
    const source = `${src.symbol}|PROTEIN`;
    const target = `${tgt.symbol}|${tgt.type}`;
    if (source === target) continue;

    let confidence: string | null = null;
    const evidenceItems = cell(col.evidence)
      .split("|")
      .map((e) => e.trim())
      .filter((e) => e !== "");
    if (confidenceCol >= 0 && cell(confidenceCol) !== "") confidence = cell(confidenceCol).toUpperCase();
    else
      for (const e of evidenceItems)
        confidence = betterConfidence(confidence, CONFIDENCE_EVIDENCE_RE.exec(e)?.[1] ?? null);
    if (confidence !== null) sawConfidence = true;

    const key = `${source}\t${target}\t${edgeType}`;
    const acc = merged.get(key) ?? {
      source,
      target,
      edgeType,
      signs: new Set<number>(),
      resources: new Set<string>(),
      evidence: new Set<string>(),
      confidences: [],
    };
    merged.set(key, acc);
    acc.signs.add(sign);
    if (cell(col.resource) !== "") acc.resources.add(cell(col.resource));
    for (const e of evidenceItems) acc.evidence.add(e);
    acc.confidences.push(confidence);
  }

  if (badRows.length > 0) throw new NetworkFormatError("network file has malformed rows", badRows);
  if (unapproved.size > 0) {
    const examples = [...unapproved].sort(compareIds).slice(0, MAX_EXAMPLES);
    throw new NetworkFormatError(
      `${unapproved.size} node symbols are not approved HGNC symbols of the model's snapshot (e.g.)`,
      examples,
    );
  }
  if (merged.size === 0) throw new NetworkFormatError("network file has no edges");

  const weightRule: WeightRule = sawConfidence ? "dorothea_confidence" : "uniform";
  const edges: NetworkEdge[] = [];
  for (const acc of merged.values()) {
    // Duplicate rows are parallel edges: their weights add up, so merging them leaves the walk
    // unchanged. This reproduces the reference values of §16.5 (145 OmniPath pairs carry both
    // signs and count twice in their source's weight sum).
    let weight = 0;
    for (const c of acc.confidences) {
      if (weightRule === "uniform" || acc.edgeType === "signaling") {
        weight += 1;
        continue;
      }
      const w = c === null ? undefined : CONFIDENCE_WEIGHT[c];
      if (w === undefined)
        throw new NetworkFormatError("transcriptional edge without a confidence A, B or C", [
          `${acc.source} -> ${acc.target}`,
        ]);
      weight += w;
    }
    edges.push({
      source: acc.source,
      target: acc.target,
      sign: acc.signs.size === 1 ? (acc.signs.values().next().value as -1 | 0 | 1) : 0,
      edgeType: acc.edgeType,
      resource: [...acc.resources].sort(compareIds).join("|"),
      evidence: [...acc.evidence].sort(compareIds).join("|"),
      weight,
      rows: acc.confidences.length,
    });
  }
  edges.sort((a, b) => compareIds(a.source, b.source) || compareIds(a.target, b.target));
  const nodes = new Set<string>();
  for (const e of edges) nodes.add(e.source).add(e.target);
  return { nodeIds: [...nodes].sort(compareIds), edges, weightRule };
}
