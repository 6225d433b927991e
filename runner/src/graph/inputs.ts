/**
 * `causal_graph_inputs.json` (model.md §11 "Replay"): everything the causal-graph image is drawn
 * from. The runner writes it next to the causal paths; the API's on-demand route
 * (service-spec §4.8) reads it back and redraws with the caller's `top_n_degs` and `dpi`, so the
 * schema is a stored format: extend it only with optional fields, or bump `version`.
 *
 * ```json
 * {
 *   "version": 1,
 *   "target": "STAT1|PROTEIN",
 *   "model_version": "v1",
 *   "options": { "min_path_probability": 0.0001, "min_path_fraction": 0.1, "max_path_length": 6 },
 *   "degs": [{ "id": "GBP1|RNA", "score_deg_given_target": 0.0123 }],
 *   "paths": [{
 *     "deg": "GBP1|RNA",
 *     "nodes": ["STAT1|PROTEIN", "IRF1|PROTEIN", "GBP1|RNA"],
 *     "score_path_given_target": 0.0041,
 *     "edge_signs": [1, 1],
 *     "edge_types": ["signaling", "transcriptional"]
 *   }],
 *   "log2fc": { "STAT1": 2.1, "IRF1": 3.4, "GBP1": 5.2, "IRF9": null }
 * }
 * ```
 *
 * - `degs`: every impacted DEG of `D_t` (§10.2), in `D_t` order; DEGs without a kept path included,
 *   so that `top_n_degs` means the same as on the other routes (§10.7).
 * - `paths`: the kept paths (§10.3) in row order (§10.5); `nodes` are entity ids from the target to
 *   the DEG, `edge_signs[i]`/`edge_types[i]` describe `nodes[i] → nodes[i+1]`.
 * - `options.max_path_length`: the value actually used (the model default resolved, never null).
 * - `log2fc`: log2 fold change (perturbed vs control) by gene symbol, for every gene of every path;
 *   `null` or absent = not measured.
 */
import { z } from "zod";
import { formatEntityId, parseEntityId } from "@causeway/contract";

const entityId = z.string().min(3).max(140);
const edgeSign = z.union([z.literal(-1), z.literal(0), z.literal(1)]);
const edgeType = z.enum(["signaling", "transcriptional"]);

/** Edge sign of the interactome (model.md §6.1): +1 activation, −1 inhibition, 0 unknown. */
export type EdgeSign = z.infer<typeof edgeSign>;
/** Edge layer: PROTEIN→PROTEIN signaling or PROTEIN→RNA transcriptional regulation. */
export type EdgeType = z.infer<typeof edgeType>;

const GraphOptions = z.object({
  min_path_probability: z.number().gt(0).max(1),
  min_path_fraction: z.number().min(0).max(1),
  max_path_length: z.number().int().min(1),
});

const ImpactedDeg = z.object({
  id: entityId,
  score_deg_given_target: z.number().positive().max(1),
});

const KeptPath = z.object({
  deg: entityId,
  nodes: z.array(entityId).min(2),
  score_path_given_target: z.number().positive().max(1),
  edge_signs: z.array(edgeSign),
  edge_types: z.array(edgeType),
});

const RawInputs = z.object({
  version: z.literal(1),
  target: entityId,
  model_version: z.string().min(1).max(128),
  options: GraphOptions,
  degs: z.array(ImpactedDeg).max(100_000),
  paths: z.array(KeptPath).max(1_000_000),
  log2fc: z.record(z.string().min(1), z.number().nullable()),
});

/** Whether `id` is a canonical entity id (`SYMBOL|PROTEIN`, `SYMBOL|RNA`) of the wanted type. */
function canonical(id: string, type: "PROTEIN" | "RNA"): boolean {
  const parsed = parseEntityId(id);
  return parsed !== null && parsed.type === type && formatEntityId(parsed.symbol, type) === id;
}

/** The cross-field rules a stored file must satisfy for the drawing to mean what §10 says. */
function checkConsistency(raw: z.infer<typeof RawInputs>, ctx: z.RefinementCtx): void {
  const issue = (path: (string | number)[], message: string): void => {
    ctx.addIssue({ code: "custom", path, message });
  };
  if (!canonical(raw.target, "PROTEIN")) issue(["target"], "must be a SYMBOL|PROTEIN entity id");

  const degIds = new Set<string>();
  raw.degs.forEach((deg, i) => {
    if (!canonical(deg.id, "RNA")) issue(["degs", i, "id"], "must be a SYMBOL|RNA entity id");
    if (degIds.has(deg.id)) issue(["degs", i, "id"], `duplicate DEG ${deg.id}`);
    degIds.add(deg.id);
  });

  // One drawn edge stands for every path through it, so all paths must agree on its sign.
  const signOf = new Map<string, EdgeSign>();
  raw.paths.forEach((path, i) => {
    const at = (...rest: (string | number)[]): (string | number)[] => ["paths", i, ...rest];
    const { nodes } = path;
    if (!degIds.has(path.deg)) issue(at("deg"), `${path.deg} is not among degs`);
    if (nodes[0] !== raw.target) issue(at("nodes", 0), "a path must start at the target");
    if (nodes[nodes.length - 1] !== path.deg) issue(at("nodes"), "a path must end at its deg");
    if (nodes.length > raw.options.max_path_length) issue(at("nodes"), "path longer than max_path_length");
    if (new Set(nodes).size !== nodes.length) issue(at("nodes"), "a path must be simple (no repeated node)");
    for (let k = 0; k < nodes.length - 1; k++) {
      if (!canonical(nodes[k]!, "PROTEIN")) issue(at("nodes", k), "all but the last node must be proteins");
    }
    const edges = nodes.length - 1;
    if (path.edge_signs.length !== edges) issue(at("edge_signs"), `expected ${edges} signs`);
    if (path.edge_types.length !== edges) issue(at("edge_types"), `expected ${edges} edge types`);
    path.edge_types.forEach((type, k) => {
      const expected: EdgeType = k === edges - 1 ? "transcriptional" : "signaling";
      if (type !== expected) issue(at("edge_types", k), `edge ${k} must be ${expected}`);
    });
    path.edge_signs.forEach((sign, k) => {
      const key = `${nodes[k]}\t${nodes[k + 1]}`;
      const seen = signOf.get(key);
      if (seen === undefined) signOf.set(key, sign);
      else if (seen !== sign)
        issue(at("edge_signs", k), `conflicting signs for ${nodes[k]} → ${nodes[k + 1]}`);
    });
  });
}

/** Zod schema of `causal_graph_inputs.json`, structural and cross-field rules included. */
export const CausalGraphInputs = RawInputs.superRefine(checkConsistency);

/** Content of `causal_graph_inputs.json` (see the module comment for each field's meaning). */
export type CausalGraphInputs = z.infer<typeof RawInputs>;

/** Stored replay inputs that are missing or fail validation: the API answers 422 (§4.8). */
export class InvalidGraphInputs extends Error {
  override readonly name = "InvalidGraphInputs";
  /** One line per problem, `path: message`, at most 20. */
  readonly issues: string[];

  constructor(issues: string[]) {
    super(`invalid causal graph inputs: ${issues.slice(0, 5).join("; ")}${issues.length > 5 ? "; …" : ""}`);
    this.issues = issues.slice(0, 20);
  }
}

/**
 * Parses the stored file's text (null or undefined: the file is missing) as causal-graph inputs.
 * @throws InvalidGraphInputs for a missing file, malformed JSON or invalid content
 */
export function parseCausalGraphInputsText(text: string | null | undefined): CausalGraphInputs {
  if (text === null || text === undefined)
    throw new InvalidGraphInputs(["(root): causal_graph_inputs.json is missing"]);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new InvalidGraphInputs([`(root): not JSON (${(error as Error).message})`]);
  }
  return parseCausalGraphInputs(json);
}

/**
 * Validates parsed JSON as causal-graph inputs.
 * @throws InvalidGraphInputs listing what is wrong (also for `undefined`, i.e. a missing file).
 */
export function parseCausalGraphInputs(json: unknown): CausalGraphInputs {
  const result = CausalGraphInputs.safeParse(json);
  if (!result.success) {
    throw new InvalidGraphInputs(
      result.error.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "(root)"}: ${i.message}`),
    );
  }
  return result.data;
}
