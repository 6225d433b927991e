/** Split-conformal thresholds for model v4's 90 % prediction sets (fit-v4.ts). */

/**
 * The conformal threshold, with every split group weighing the same: the smallest score whose
 * share of the groups' pooled distribution reaches (1 − α)(1 + 1/G), for G groups (1, the whole
 * list, when too few). The experiments of one ligand, GEO series or perturbed gene resemble each
 * other more than the next experiment the service will see, so the group, not the case, is the
 * unit that is exchangeable: counted by cases, one ligand's experiments in six cell lines would
 * count as six independent hits or misses.
 */
export function conformalTau(scores: readonly number[], groups: readonly string[], alpha: number): number {
  const perGroup = new Map<string, number>();
  for (const g of groups) perGroup.set(g, (perGroup.get(g) ?? 0) + 1);
  const G = perGroup.size;
  const level = (1 - alpha) * (1 + 1 / G);
  if (G === 0 || level > 1) return 1;
  const order = scores.map((_, i) => i).sort((a, b) => scores[a]! - scores[b]!);
  let mass = 0;
  for (const i of order) {
    mass += 1 / (G * perGroup.get(groups[i]!)!);
    if (mass >= level - 1e-12) return scores[i]!;
  }
  return 1;
}
