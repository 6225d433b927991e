/**
 * What the service will make of a DEG list, in one sentence that never contradicts its details:
 * recognised (a gene the service knows) and in the model (a node the model can explain) are
 * counted apart, and the tone is "ok" only when every gene is both.
 */
import type { ResolvedGenes } from "../../client.ts";

export interface DegCheck {
  text: string;
  tone: "none" | "ok" | "warn" | "error";
  notRecognised: ResolvedGenes["genes"];
  notInModel: ResolvedGenes["genes"];
}

export const MAX_DEGS = 20_000;

export function degCheck(n: number, resolved: ResolvedGenes | null): DegCheck {
  const none = { notRecognised: [], notInModel: [] };
  if (n === 0) return { text: "No genes yet.", tone: "none", ...none };
  const f = (v: number) => v.toLocaleString("en");
  if (n > MAX_DEGS)
    return { text: `${f(n)} genes: at most ${f(MAX_DEGS)} are accepted.`, tone: "error", ...none };
  if (!resolved) return { text: `${f(n)} genes · checking…`, tone: "none", ...none };
  const notRecognised = resolved.genes.filter((g) => g.symbol === null);
  const notInModel = resolved.genes.filter((g) => g.symbol !== null && !g.in_model);
  const inModel = resolved.n_input - notRecognised.length - notInModel.length;
  const parts = [`${f(inModel)} of ${f(resolved.n_input)} genes are in the model`];
  if (notInModel.length > 0) parts.push(`${f(notInModel.length)} recognised but not in the model`);
  if (notRecognised.length > 0) parts.push(`${f(notRecognised.length)} not recognised`);
  const tone = inModel === 0 ? "error" : inModel === resolved.n_input ? "ok" : "warn";
  return { text: parts.join("; ") + ".", tone, notRecognised, notInModel };
}
