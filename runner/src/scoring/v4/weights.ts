/**
 * Model v4 as shipped: the weights, temperature and conformal thresholds printed by
 * `node runner/validation/src/fit-v4.ts` (fitted on every development case of known_answers_v2
 * and known_answers_v3; runner/docs/model-v4.md gives the cross-validated figures).
 */
import type { ListKind, PerturbationType, V4Feature } from "./features.ts";

/** A calibration group: the submitter's perturbation type and the kind of DEG evidence. */
export type V4Group = `${PerturbationType}/${ListKind}`;

type Weights = Partial<Record<V4Feature, number>>;

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
  /** Per group, the probability mass the 90 % prediction set must reach (split-conformal APS, Mondrian). */
  apsThreshold: Record<V4Group, number>;
}

export const V4_MODEL: V4Model = {
  shared: {
    propagated: 0.1144,
    tf_binding: 0.4758,
    tf_coexpression: 0.7026,
    kinase: 0.5814,
    ulm: 1.0317,
    direct: 0.3043,
    raw_influence: 0.018,
    ulm_table: 0.5111,
    has_table: 0.4116,
    log_out_degree: 0.0181,
    tf_layers: 0.0419,
    kinase_layers: 0.2581,
    is_tf: 0.6283,
    steps_1: -0.145,
    steps_2: -0.1613,
    steps_3: -0.3219,
    apex: -0.4884,
    below_apex: 0.6505,
    log_signaling_in: 0.3693,
  },
  byType: {
    ligand: {
      log_out_degree: -0.1126,
      tf_layers: -0.4178,
      kinase_layers: 0.0118,
      is_tf: -0.236,
      steps_1: 0.0036,
      steps_2: 0.0572,
      steps_3: 0.1753,
      apex: -0.02,
      below_apex: 0.428,
      log_signaling_in: 0.6949,
      raw_influence: -0.2929,
      ulm_table: 0,
      propagated: -0.4973,
    },
    drug: {
      log_out_degree: 0.1912,
      tf_layers: -0.0673,
      kinase_layers: 0.2499,
      is_tf: -0.0341,
      steps_1: 0.0075,
      steps_2: 0.0909,
      steps_3: -0.0643,
      apex: -0.0502,
      below_apex: -0.2543,
      log_signaling_in: 0.0163,
      raw_influence: -0.0127,
      ulm_table: 0.0212,
      propagated: -0.0928,
    },
    knockout: {
      log_out_degree: 0.043,
      tf_layers: 0.0852,
      kinase_layers: -0.03,
      is_tf: 0.5784,
      steps_1: 0.0721,
      steps_2: -0.3707,
      steps_3: -0.2798,
      apex: -0.3219,
      below_apex: 0.0414,
      log_signaling_in: -0.2422,
      raw_influence: 0.0273,
      ulm_table: -0.046,
      propagated: 0.3684,
    },
    knockdown: {
      log_out_degree: 0.1802,
      tf_layers: 0.0721,
      kinase_layers: -0.1289,
      is_tf: -0.3632,
      steps_1: 0.4457,
      steps_2: 0.0849,
      steps_3: -0.1674,
      apex: 0.4409,
      below_apex: 0.1102,
      log_signaling_in: -0.3726,
      raw_influence: -0.0127,
      ulm_table: 0.1587,
      propagated: -0.0847,
    },
    overexpression: {
      log_out_degree: -0.0376,
      tf_layers: -0.027,
      kinase_layers: -0.163,
      is_tf: -0.0751,
      steps_1: 0.0023,
      steps_2: -0.0801,
      steps_3: 0.1529,
      apex: -0.0342,
      below_apex: -0.196,
      log_signaling_in: -0.3255,
      raw_influence: -0.047,
      ulm_table: -0.0036,
      propagated: 0.0141,
    },
    unknown: {
      log_out_degree: -0.2624,
      tf_layers: 0.3588,
      kinase_layers: 0.0859,
      is_tf: 0.1929,
      steps_1: -0.5457,
      steps_2: 0.2017,
      steps_3: 0.1511,
      apex: -0.0635,
      below_apex: -0.0643,
      log_signaling_in: 0.266,
      raw_influence: 0.3398,
      ulm_table: -0.0793,
      propagated: 0.3037,
    },
  },
  byKind: {
    table: {},
    signed: {},
    unsigned: {},
  },
  byGroup: {},
  temperature: 1.0436,
  apsThreshold: {
    "ligand/table": 0.998897,
    "ligand/signed": 0.998897,
    "ligand/unsigned": 0.998897,
    "drug/table": 0.896226,
    "drug/signed": 0.896226,
    "drug/unsigned": 0.893045,
    "knockout/table": 0.889999,
    "knockout/signed": 0.845919,
    "knockout/unsigned": 0.771218,
    "knockdown/table": 0.803935,
    "knockdown/signed": 0.782999,
    "knockdown/unsigned": 0.98971,
    "overexpression/table": 0.913428,
    "overexpression/signed": 0.913428,
    "overexpression/unsigned": 0.913428,
    "unknown/table": 0.866254,
    "unknown/signed": 0.866254,
    "unknown/unsigned": 0.860979,
  },
};
