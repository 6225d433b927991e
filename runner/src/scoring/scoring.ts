/**
 * What a model version's target scoring is to the rest of the runner: one record per version
 * (registry.ts), so a job, the command line, model import and `npm run validate` ask the record
 * instead of comparing version names.
 */
import type { ScoringVersion } from "@causeway/contract";
import type { Model, WalkParams } from "../model/index.ts";
import type { ScoreTargetsResult } from "./score-targets-v1.ts";
import type { ScoreTargetsV2Input } from "./score-targets-v2.ts";

export interface Scoring {
  version: ScoringVersion;
  /** The walk its influence bundle is built with: a model version of this scoring is imported with it. */
  walk: WalkParams;
  /** Whether it reads the model version's evidence layers (gene-set libraries). */
  readsLayers: boolean;
  /**
   * Whether a DEG list's DE table may supply the control arm's expression. v1 never reads it, so
   * its outputs for DEG lists stay what §16.5 fixed.
   */
  readsTableExpression: boolean;
  /** Scores every candidate. */
  score(input: ScoreTargetsV2Input): ScoreTargetsResult;
  /** Its settings as run_metadata.json records them (beside the version and the hub exponent). */
  settings(model: Model): Record<string, unknown>;
}
