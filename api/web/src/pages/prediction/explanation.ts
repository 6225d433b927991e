/**
 * How a target explains the DEGs, in one shape whatever it is read from: the causal graph's
 * inputs (causal_graph_inputs.json, which every causal analysis and target_validation job
 * writes) or, for accounts without result files, the API's derived routes. Each step of a path
 * keeps its type, so a protein and the RNA of the same gene read apart ("IRF2 → IRF2 (RNA)").
 */
import { parseEntityId } from "@causeway/contract";
import type { CausalGraphInputs } from "@causeway/runner/graph/inputs";
import type { CausalPaths } from "../../client.ts";

export interface PathStep {
  symbol: string;
  rna: boolean;
}

export interface ExplainedPath {
  deg: string;
  steps: PathStep[];
  score: number | null;
  degLog2fc: number | null;
}

export interface Explanation {
  /** Impacted DEG symbols, best explained first: all of them. */
  degs: string[];
  paths: ExplainedPath[];
  /** Proteins inside the paths to the top DEGs, by summed path score. */
  intermediaries: string[];
}

/** How many of the best DEGs the intermediary proteins are counted over (the API's default view). */
export const INTERMEDIARY_TOP_DEGS = 20;

const stepOf = (id: string): PathStep => {
  const e = parseEntityId(id);
  return e ? { symbol: e.symbol, rna: e.type === "RNA" } : { symbol: id, rna: false };
};

/** A path as one line: `STAT1 → IRF1 → GBP1 (RNA)`. */
export const pathText = (steps: PathStep[]): string =>
  steps.map((s) => (s.rna ? `${s.symbol} (RNA)` : s.symbol)).join(" → ");

/** Interior nodes of the paths to the first `topN` DEGs, by summed path score (ties by symbol). */
function intermediariesOf(paths: ExplainedPath[], degs: string[], topN: number): string[] {
  const top = new Set(degs.slice(0, topN));
  const sums = new Map<string, number>();
  for (const p of paths) {
    if (!top.has(p.deg)) continue;
    for (const s of new Set(p.steps.slice(1, -1).map((x) => x.symbol)))
      sums.set(s, (sums.get(s) ?? 0) + (p.score ?? 0));
  }
  return [...sums.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([s]) => s);
}

export function explanationFromInputs(inputs: CausalGraphInputs): Explanation {
  const degs = inputs.degs.map((d) => stepOf(d.id).symbol);
  const paths = inputs.paths.map((p) => {
    const deg = stepOf(p.deg).symbol;
    return {
      deg,
      steps: p.nodes.map(stepOf),
      score: p.score_path_given_target,
      degLog2fc: inputs.log2fc[deg] ?? null,
    };
  });
  return { degs, paths, intermediaries: intermediariesOf(paths, degs, INTERMEDIARY_TOP_DEGS) };
}

/**
 * From GET …/causal-paths (and …/intermediary-proteins): a path there is symbols joined by ">",
 * from the target's protein to the DEG's RNA, so its last step is the RNA.
 */
export function explanationFromRoutes(paths: CausalPaths, intermediaries: string[]): Explanation {
  return {
    degs: paths.degs,
    paths: paths.paths.map((r) => {
      const symbols = r.path.split(">");
      return {
        deg: r.deg,
        steps: symbols.map((symbol, i) => ({ symbol, rna: i === symbols.length - 1 && i > 0 })),
        score: r.score_path_given_target,
        degLog2fc: r.deg_logFC,
      };
    }),
    intermediaries,
  };
}
