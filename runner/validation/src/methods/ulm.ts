/**
 * Baseline of model.md §16.3: decoupler's ULM with the network's signed regulons, scored |t|.
 * On the DE table's statistic when the case has one; otherwise on the signed DEG indicator
 * (+1 up, −1 down, 0 for every other gene of the universe) when the case has up/down lists.
 * Cases with neither are not ranked by it.
 */
import { ulmScores } from "../baselines.ts";
import { rankingFromScores, type MethodFactory, type PreparedCase } from "./method.ts";

/** The per-gene statistic ULM regresses: the table's, or the signed DEG indicator over the universe. */
export function ulmStatistic(
  c: Pick<PreparedCase, "stat" | "signed" | "universe">,
): ReadonlyMap<string, number> | null {
  if (c.stat) return c.stat;
  if (!c.signed) return null;
  const y = new Map<string, number>(c.universe.map((g) => [g, 0]));
  for (const g of c.signed.up) y.set(g, 1);
  // A gene listed both up and down (a few probes of one gene) carries no direction.
  for (const g of c.signed.down) y.set(g, y.get(g) === 1 ? 0 : -1);
  return y;
}

export const ulmMethod: MethodFactory = async (ctx) => [
  {
    name: "ulm",
    appliesTo: (c) => c.stat !== null || c.signed !== null,
    rank: (c) => rankingFromScores(ctx.primary, ulmScores(ctx.primary, ulmStatistic(c)!)),
  },
];
