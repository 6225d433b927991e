/**
 * Model v4 as shipped: the weights, temperature and conformal thresholds in v4-model.json,
 * written by `node runner/validation/src/fit-v4.ts --write` (fitted on every development case of
 * known_answers_v2 and known_answers_v3; runner/docs/model-v4.md gives the cross-validated
 * figures). The file is data a fit rewrites, so it is checked against the schema when loaded.
 */
import { z } from "zod";
import {
  LIST_KINDS,
  LIST_SIZES,
  PERTURBATION_TYPES,
  V4_FEATURES,
  type ListKind,
  type ListSize,
  type PerturbationType,
  type V4Feature,
} from "./features.ts";
import fitted from "./v4-model.json" with { type: "json" };

/** A weight group: the submitter's perturbation type and the kind of DEG evidence. */
export type V4Group = `${PerturbationType}/${ListKind}`;
/** A calibration group: the weight group and the list's size. */
export type V4CalibrationGroup = `${V4Group}/${ListSize}`;

type Weights = Partial<Record<V4Feature, number>>;

/**
 * A 90 % prediction set rule, split-conformal on held-out development cases (each split group
 * weighing the same): `aps`, the fewest most probable candidates whose probabilities reach
 * `value` (adaptive: small when the model is sure); `top`, the `value` most probable (for a group
 * whose probabilities are not sharp enough for the adaptive rule to give smaller sets).
 */
export interface SetRule {
  rule: "aps" | "top";
  value: number;
}

export interface V4Model {
  /** Weights every job shares. */
  shared: Weights;
  /** Each perturbation type's deviation from the shared weights. */
  byType: Record<PerturbationType, Weights>;
  /** Each list kind's deviation. */
  byKind: Record<ListKind, Weights>;
  /** Each (type, kind) group's deviation; absent: none. */
  byGroup: Partial<Record<V4Group, Weights>>;
  /** Divides the score before the softmax: calibrates `probability` on held-out cases. */
  temperature: number;
  /** Per calibration group (Mondrian), how the 90 % prediction set is drawn. */
  predictionSet: Record<V4CalibrationGroup, SetRule>;
  /** How many development experiments of each (type, kind) group the weights were fitted on. */
  developmentCases: Record<V4Group, number>;
}

/**
 * Fewest development experiments a group needs to stand on its own: the calibration of a
 * smaller group's 90 % set borrows its (type, kind)'s or its type's cases, and a job of a
 * smaller (type, kind) group is told that its probabilities lean on other kinds of experiment.
 */
export const MIN_GROUP_CASES = 30;

const V4_GROUPS = PERTURBATION_TYPES.flatMap((t) => LIST_KINDS.map((k) => `${t}/${k}` as const));
const V4_CALIBRATION_GROUPS = V4_GROUPS.flatMap((g) => LIST_SIZES.map((z) => `${g}/${z}` as const));

const WeightsSchema = z.partialRecord(z.enum(V4_FEATURES), z.number());

/** The shape of v4-model.json. */
export const V4ModelSchema = z.strictObject({
  shared: WeightsSchema,
  byType: z.record(z.enum(PERTURBATION_TYPES), WeightsSchema),
  byKind: z.record(z.enum(LIST_KINDS), WeightsSchema),
  byGroup: z.partialRecord(z.enum(V4_GROUPS), WeightsSchema),
  temperature: z.number().positive(),
  predictionSet: z.record(
    z.enum(V4_CALIBRATION_GROUPS),
    z.strictObject({ rule: z.enum(["aps", "top"]), value: z.number().positive() }),
  ),
  developmentCases: z.record(z.enum(V4_GROUPS), z.number().int().nonnegative()),
});

/** Where `fit-v4.ts --write` puts the constants it fits. */
export const V4_MODEL_PATH = new URL("./v4-model.json", import.meta.url);

export const V4_MODEL: V4Model = V4ModelSchema.parse(fitted);
