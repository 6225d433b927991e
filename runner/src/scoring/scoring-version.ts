/**
 * The scoring of a model version. A model version's manifest names its scoring (`scoring`,
 * v1 when absent); v1 and v2 read the same influence bundle, so a v2 version is a v1 bundle
 * whose manifest says `"scoring": "v2"`. A v3 version is a v2 bundle (h = 0.5) with optional
 * evidence layers (gene-set libraries) and `"scoring": "v3"` (runner/docs/model-v3.md).
 */
import { ScoringVersion } from "@causeway/contract";
import { V1_WALK, type WalkParams } from "../model/index.ts";
import type { ScoreTargetsResult } from "./score-targets.ts";
import { scoreTargetsV3 } from "./score-targets-v3.ts";
import type { PerturbationType } from "./v4/features.ts";
import { scoreTargetsV4 } from "./v4/score-targets-v4.ts";
import { scoreTargets } from "./score-targets.ts";
import {
  V2_DEFAULTS,
  scoreTargetsV2,
  type ScoreTargetsV2Input,
  type V2Settings,
} from "./score-targets-v2.ts";

export { ScoringVersion };

/**
 * The model a job gets when it names none: the command line's `--model-version` default and the
 * `default_model` of `npm run validate`'s report. (The service's default is the first version
 * of CAUSEWAY_MODEL_VERSIONS at first start.)
 */
export const DEFAULT_SCORING_VERSION: ScoringVersion = "v3";

/** Scores with the given scoring; v1 ignores the fold changes and v2 settings. */
export function scoreTargetsWith(
  version: ScoringVersion,
  input: ScoreTargetsV2Input & { perturbationType?: PerturbationType },
): ScoreTargetsResult {
  return version === "v4"
    ? scoreTargetsV4(input)
    : version === "v3"
      ? scoreTargetsV3(input)
      : version === "v2"
        ? scoreTargetsV2(input)
        : scoreTargets(input);
}

/**
 * Model v2 as shipped: the walk of its influence bundle and its scoring settings, both chosen
 * by leave-one-case-out cross-validation over the shared known-answer cases (`npm run
 * validate` prints the choice; runner/docs/model-v2.md). The hub penalty changes the bundle,
 * so a v2 model version is imported with this walk.
 */
export const MODEL_V2: { walk: WalkParams; settings: V2Settings } = {
  walk: { ...V1_WALK, hubExponent: 0.5 },
  settings: V2_DEFAULTS,
};

/** Whether a scoring reads the evidence layers (gene-set libraries) of its model version. */
export function readsLayers(version: ScoringVersion): boolean {
  return version === "v3" || version === "v4";
}

/** The walk of a model version's bundle for a scoring version (command line: --model-version). */
export function walkFor(version: ScoringVersion): WalkParams {
  // v3 and v4 read the v2 walk: their propagated evidence is v1's p-value on the hub-penalized bundle.
  return version === "v2" || version === "v3" || version === "v4" ? MODEL_V2.walk : V1_WALK;
}

/**
 * The `importModel` options that make a stored model version of the given model: its walk (the
 * bundle) and the scoring its manifest records. `models import` of model v2 passes these.
 */
export function importOptionsFor(version: ScoringVersion): { walk: WalkParams; scoring: ScoringVersion } {
  return { walk: walkFor(version), scoring: version };
}
