/**
 * The scoring registry: every model version's scoring by name. A model version is a network
 * bundle plus one of these, named by its manifest's `scoring` (v1 when absent). v1 and v2 read the
 * same influence bundle, so a v2 version is a v1 bundle whose manifest says `"scoring": "v2"`; v3
 * is a v2 bundle (h = 0.5) with optional evidence layers (runner/docs/model-v2.md, model-v3.md).
 * Adding a version: its scorer and record beside the others, one line here, and its columns in
 * the contract (`@causeway/contract` score-table.ts).
 */
import type { ScoringVersion } from "@causeway/contract";
import type { WalkParams } from "../model/index.ts";
import type { Scoring } from "./scoring.ts";
import { SCORING_V1 } from "./score-targets-v1.ts";
import { SCORING_V2 } from "./score-targets-v2.ts";
import { SCORING_V3 } from "./score-targets-v3.ts";

export const SCORINGS: { readonly [V in ScoringVersion]: Scoring } = {
  v1: SCORING_V1,
  v2: SCORING_V2,
  v3: SCORING_V3,
};

/**
 * The scoring a job gets when it names none: the command line's `--model-version` default and the
 * `default_model` of `npm run validate`'s report. (The service's default is the first version of
 * CAUSEWAY_MODEL_VERSIONS at first start.)
 */
export const DEFAULT_SCORING_VERSION: ScoringVersion = "v3";

export function scoringOf(version: ScoringVersion): Scoring {
  return SCORINGS[version];
}

/**
 * The `importModel` options that make a stored model version of the given scoring: its walk (the
 * bundle) and the scoring its manifest records.
 */
export function importOptionsFor(version: ScoringVersion): { walk: WalkParams; scoring: ScoringVersion } {
  return { walk: SCORINGS[version].walk, scoring: version };
}
