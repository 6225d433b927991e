/**
 * Model v4's candidates (runner/docs/model-v4.md, "Coverage"). A protein the network cannot
 * reach is an answer nobody can get, so v4 ranks, beside the network's sources (the proteins
 * whose walk reaches an RNA node: the candidates of v1–v3, first and in bundle row order), every
 * protein that an evidence layer of the model version names as a regulator and the network does
 * not: a kinase of a KEA3 library, a TF of a ChEA3 library, a protein of a PPI network (sorted
 * by symbol). Their evidence is the layers' alone; `candidate_source` says which.
 */
import type { Model } from "../../model/index.ts";
import type { LayerKind } from "../../libraries/gmt.ts";
import type { LayerCandidates } from "../score-targets-v3.ts";

export interface V4Candidates extends LayerCandidates {
  /** Approved symbols: the network's sources, then the others. */
  readonly symbols: readonly string[];
  /** How many of them are network sources (indices below this one are source indices). */
  readonly nNetwork: number;
  /** Why each is a candidate: `network`, or the kinds of the layers that name it, joined by `+`. */
  readonly source: readonly string[];
  /** The candidates beyond the network only (index −1 for a source): their layer tests alone. */
  readonly offNetwork: LayerCandidates;
}

const cache = new WeakMap<Model, V4Candidates>();

export function v4Candidates(model: Model): V4Candidates {
  const cached = cache.get(model);
  if (cached) return cached;
  const nNetwork = model.nSources;
  const kinds = new Map<string, Set<LayerKind>>();
  for (const layer of model.layers)
    for (const regulator of layer.sets.keys()) {
      if (model.sourceIndex(regulator) >= 0) continue;
      let k = kinds.get(regulator);
      if (!k) kinds.set(regulator, (k = new Set()));
      k.add(layer.kind);
    }
  const extra = [...kinds.keys()].sort();
  const symbols = [...model.sourceSymbols, ...extra];
  const index = new Map(extra.map((s, i) => [s, nNetwork + i]));
  const indexOf = (s: string): number => {
    const i = model.sourceIndex(s);
    return i >= 0 ? i : (index.get(s) ?? -1);
  };
  const out: V4Candidates = {
    n: symbols.length,
    symbols,
    nNetwork,
    indexOf,
    source: [
      ...model.sourceSymbols.map(() => "network"),
      ...extra.map((s) => [...kinds.get(s)!].sort().join("+")),
    ],
    offNetwork: { n: symbols.length, indexOf: (s) => index.get(s) ?? -1 },
  };
  cache.set(model, out);
  return out;
}
