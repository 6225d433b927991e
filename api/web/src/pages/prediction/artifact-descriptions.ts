/** What a result file holds, in one line: the contract's `ARTIFACT_DESCRIPTIONS`. */
import { ARTIFACT_DESCRIPTIONS } from "@causeway/contract";

const KNOWN = Object.entries(ARTIFACT_DESCRIPTIONS) as [string, string][];

/**
 * The line for `name`, which is a contract basename or, for a job with several result sets,
 * `<prefix>.<basename>`; null for a file the contract does not describe. The longest matching
 * basename wins, since one basename can end another (`source_influence_matrix.ids.json`).
 */
export function artifactDescription(name: string): string | null {
  let best: [string, string] | null = null;
  for (const entry of KNOWN) {
    const base = entry[0];
    if ((name === base || name.endsWith(`.${base}`)) && (!best || base.length > best[0].length)) best = entry;
  }
  return best?.[1] ?? null;
}
