/**
 * The ranking methods of `npm run validate`, in report order: every model version, then the
 * baselines of model.md §16.3. Add a method (a library integration, a new baseline) by writing
 * its MethodFactory in this folder and listing it here; model versions come from the scoring
 * registry (model-versions.ts) and need no entry.
 */
import { directTargetsMethod } from "./direct-targets.ts";
import { libraryIntegrationMethods } from "./library-integration.ts";
import type { MethodFactory, RankingMethod, ValidationContext } from "./method.ts";
import { modelVersionMethods } from "./model-versions.ts";
import { outDegreeMethod } from "./out-degree.ts";
import { randomMethod } from "./random.ts";
import { rawInfluenceMethod } from "./raw-influence.ts";
import { ulmMethod } from "./ulm.ts";

export const METHOD_FACTORIES: readonly MethodFactory[] = [
  modelVersionMethods,
  outDegreeMethod,
  directTargetsMethod,
  ulmMethod,
  rawInfluenceMethod,
  randomMethod,
  libraryIntegrationMethods,
];

/** Every method of a run, each made once. */
export async function loadMethods(ctx: ValidationContext): Promise<RankingMethod[]> {
  const out: RankingMethod[] = [];
  for (const make of METHOD_FACTORIES) out.push(...(await make(ctx)));
  const names = out.map((m) => m.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new Error(`two ranking methods are named ${dup}`);
  return out;
}
