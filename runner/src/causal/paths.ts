/** Causal paths of a target (model.md §10.3–10.6). */
import { JobFailure } from "@causeway/contract";
import type { Model } from "../model/index.ts";
import { compareIds } from "../model/index.ts";
import type { DegInfluence } from "./impacted-degs.ts";

/** A kept path with its API fields (§10.5) and artifact-only columns. */
export interface CausalPathRow {
  deg: string;
  target: string;
  /** Node symbols from target to DEG joined by `>`. */
  path: string;
  /** Number of nodes. */
  length: number;
  score_path_given_target: number;
  path_logFC: number | null;
  deg_logFC: number | null;
  path_probability: number;
  path_fraction: number;
  /** JSON array of entity ids. */
  path_nodes: string;
  /** `+`, `-` or `0` per edge, comma-separated. */
  edge_signs: string;
  path_sign: number;
  sign_consistent: boolean | null;
  /** Per edge `resource:evidence`, edges separated by `;`. */
  edge_evidence: string;
  [column: string]: string | number | boolean | null;
}

/** Thresholds and context of the path search. */
export interface PathOptions {
  minPathProbability: number;
  minPathFraction: number;
  /** L in nodes (already defaulted). */
  maxPathLength: number;
  /** log2FC by gene symbol (5.6/5.9); absent or null → unmeasured. */
  foldChanges?: ReadonlyMap<string, number | null>;
  /** −1 loss of function (default), +1 activation (§10.6). */
  modality?: -1 | 1;
}

/**
 * How much work one path search may do. The search is exponential in `max_path_length` and in
 * 1/`min_path_probability`; without a bound a request with loose thresholds runs until the
 * process exhausts its heap. `edgeSteps` bounds the time (out-edges examined), `heldPaths` the
 * memory (prefixes waiting on the stack plus paths recorded; ~150 bytes each, so the default is
 * under 100 MB). The default thresholds need a few thousand expansions on the default
 * interactome, far below either bound; reaching one fails the job with `path_search_too_large`
 * (non-billable) in about a second instead of a heap exhaustion minutes later.
 */
export interface PathSearchBudget {
  edgeSteps: number;
  heldPaths: number;
}

export const DEFAULT_PATH_SEARCH_BUDGET: PathSearchBudget = { edgeSteps: 40_000_000, heldPaths: 500_000 };

function budgetExceeded(
  what: string,
  budget: PathSearchBudget,
  maxPathLength: number,
  minP: number,
): JobFailure {
  return new JobFailure(
    "path_search_too_large",
    `The causal path search needs more work than the service allows (max_path_length ${maxPathLength}, min_path_probability ${minP}). Raise min_path_probability or lower max_path_length.`,
    `${what} budget reached (edge steps ${budget.edgeSteps}, held paths ${budget.heldPaths})`,
  );
}

/** A path recorded by the search: global node indices and its probability. */
interface RecordedPath {
  nodes: number[];
  probability: number;
}

/**
 * The bounded depth-first search of §10.4, exactly as written: out-edges in target-id order,
 * RNA nodes never expanded, prefixes pruned by probability, simplicity and length.
 */
export function enumeratePaths(
  model: Model,
  target: number,
  impacted: ReadonlySet<number>,
  minPathProbability: number,
  maxPathLength: number,
  budget: PathSearchBudget = DEFAULT_PATH_SEARCH_BUDGET,
): { paths: RecordedPath[]; expansions: number } {
  const { indptr, indices, data } = model.graph.p;
  const isRna = model.graph.isRna;
  const paths: RecordedPath[] = [];
  const stack: { v: number; prefix: number[]; p: number }[] = [{ v: target, prefix: [target], p: 1 }];
  let expansions = 0;
  let steps = 0;
  while (stack.length > 0) {
    const { v, prefix, p } = stack.pop()!;
    expansions++;
    steps += indptr[v + 1]! - indptr[v]!;
    if (steps > budget.edgeSteps)
      throw budgetExceeded("edge-step", budget, maxPathLength, minPathProbability);
    if (stack.length + paths.length > budget.heldPaths)
      throw budgetExceeded("held-path", budget, maxPathLength, minPathProbability);
    for (let k = indptr[v]!; k < indptr[v + 1]!; k++) {
      const w = indices[k]!;
      const pw = p * data[k]!;
      if (pw < minPathProbability || prefix.includes(w) || prefix.length + 1 > maxPathLength) continue;
      if (isRna[w] === 1) {
        if (impacted.has(w)) paths.push({ nodes: [...prefix, w], probability: pw });
      } else {
        stack.push({ v: w, prefix: [...prefix, w], p: pw });
      }
    }
  }
  return { paths, expansions };
}

const symbolOf = (id: string): string => id.slice(0, id.lastIndexOf("|"));
const signText = (s: number): string => (s > 0 ? "+" : s < 0 ? "-" : "0");

/** Index of edge u→w in P (targets are sorted, so a binary search). */
function edgeIndex(model: Model, u: number, w: number): number {
  const { indptr, indices } = model.graph.p;
  let lo = indptr[u]!;
  let hi = indptr[u + 1]! - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const x = indices[mid]!;
    if (x === w) return mid;
    if (x < w) lo = mid + 1;
    else hi = mid - 1;
  }
  throw new Error(`no edge ${u}->${w}`);
}

/**
 * Enumerates, scores and filters the paths from `target` to the impacted DEGs and returns the
 * rows in §10.5 order. Throws target_not_reachable (no_path_above_thresholds) when none is kept.
 */
export function causalPaths(
  model: Model,
  target: string,
  impacted: readonly DegInfluence[],
  options: PathOptions,
  budget: PathSearchBudget = DEFAULT_PATH_SEARCH_BUDGET,
): { rows: CausalPathRow[]; expansions: number } {
  const t = model.nodeIndex(target, "PROTEIN");
  if (t < 0)
    throw new JobFailure(
      "target_not_in_interactome",
      `The target ${target} has no protein node in the interactome.`,
    );
  const ids = model.graph.nodeIds;
  const byNode = new Map<number, DegInfluence>();
  impacted.forEach((d) => byNode.set(model.graph.rnaNodes[d.rna]!, d));
  const order = new Map(impacted.map((d, i) => [d.deg, i]));
  const { paths, expansions } = enumeratePaths(
    model,
    t,
    new Set(byNode.keys()),
    options.minPathProbability,
    options.maxPathLength,
    budget,
  );
  const damping = 1 - model.alpha;
  const modality = options.modality ?? -1;
  const fc = (symbol: string): number | null => options.foldChanges?.get(symbol) ?? null;

  const rows: CausalPathRow[] = [];
  for (const rec of paths) {
    const deg = byNode.get(rec.nodes[rec.nodes.length - 1]!)!;
    const k = rec.nodes.length - 1;
    const score = Math.pow(damping, k) * rec.probability;
    const fraction = score / deg.score_deg_given_target;
    if (fraction < options.minPathFraction) continue;
    const symbols = rec.nodes.map((n) => symbolOf(ids[n]!));
    const signs: number[] = [];
    const evidence: string[] = [];
    for (let i = 0; i < k; i++) {
      const e = edgeIndex(model, rec.nodes[i]!, rec.nodes[i + 1]!);
      signs.push(model.graph.sign[e]!);
      const ev = model.graph.evidence[e]!;
      evidence.push(ev === "" ? model.graph.resource[e]! : `${model.graph.resource[e]!}:${ev}`);
    }
    const pathSign = signs.reduce((a, b) => a * b, 1);
    const interiorFc = symbols
      .slice(1, -1)
      .map(fc)
      .filter((x): x is number => x !== null && Number.isFinite(x));
    const degFc = fc(deg.deg);
    const predicted = pathSign * modality;
    rows.push({
      deg: deg.deg,
      target: symbols[0]!,
      path: symbols.join(">"),
      length: rec.nodes.length,
      score_path_given_target: score,
      path_logFC: interiorFc.length > 0 ? interiorFc.reduce((a, b) => a + b, 0) / interiorFc.length : null,
      deg_logFC: degFc,
      path_probability: rec.probability,
      path_fraction: fraction,
      path_nodes: JSON.stringify(rec.nodes.map((n) => ids[n]!)),
      edge_signs: signs.map(signText).join(","),
      path_sign: pathSign,
      sign_consistent:
        predicted === 0 || degFc === null || degFc === 0 ? null : predicted === Math.sign(degFc),
      edge_evidence: evidence.join(";"),
    });
  }
  if (rows.length === 0) {
    throw new JobFailure(
      "target_not_reachable",
      `No causal path from ${target} to an impacted DEG passes the thresholds (min_path_probability ${options.minPathProbability}, min_path_fraction ${options.minPathFraction}, max_path_length ${options.maxPathLength}). Relax them to see weaker paths.`,
      "no_path_above_thresholds",
    );
  }
  rows.sort(
    (a, b) =>
      order.get(a.deg)! - order.get(b.deg)! ||
      b.score_path_given_target - a.score_path_given_target ||
      compareIds(a.path, b.path),
  );
  return { rows, expansions };
}
