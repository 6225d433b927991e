/**
 * What a model version's target scoring is to the rest of the runner: one record per version
 * (registry.ts), so a job, the command line, model import and `npm run validate` ask the record
 * instead of comparing version names.
 */
import type { ScoringVersion } from "@causeway/contract";
import type { LayerKind } from "../libraries/gmt.ts";
import type { Model, WalkParams } from "../model/index.ts";
import type { ScoreTargetsResult } from "./score-targets-v1.ts";
import type { ScoreTargetsV2Input } from "./score-targets-v2.ts";
import type { PerturbationType } from "./v4/features.ts";

/** What a job gives every scoring: v2's input, and what the submitter said they did to the cells. */
export type ScoringInput = ScoreTargetsV2Input & { perturbationType?: PerturbationType };

export interface Scoring {
  version: ScoringVersion;
  /** The walk its influence bundle is built with: a model version of this scoring is imported with it. */
  walk: WalkParams;
  /**
   * The kinds of evidence layers it reads (gene-set libraries, PPI networks): a model version of
   * this scoring stores those and no others; none for a scoring that reads the network alone.
   */
  layerKinds: readonly LayerKind[];
  /**
   * Whether a DEG list's DE table may supply the control arm's expression. v1 never reads it, so
   * its outputs for DEG lists stay what §16.5 fixed.
   */
  readsTableExpression: boolean;
  /** Whether it conditions on the submitter's `perturbation_type` (the others never see it). */
  readsPerturbationType: boolean;
  /** Scores every candidate. */
  score(input: ScoringInput): ScoreTargetsResult;
  /** Its settings as run_metadata.json records them (beside the version and the hub exponent). */
  settings(model: Model): Record<string, unknown>;
}
