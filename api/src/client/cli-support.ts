/** What the `causeway` commands share: output, option parsers, the client of the chosen profile. */
import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { resolveConnection } from "./config.ts";
import { CausewayClient, type PredictionStatus } from "./sdk.ts";

export const out = (line: string) => process.stdout.write(line + "\n");
export const note = (line: string) => process.stderr.write(line + "\n");
export const printJson = (value: unknown) => out(JSON.stringify(value));

export const number = (v: string): number => {
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n)) throw new InvalidArgumentError("expected a number");
  return n;
};
export const integer = (v: string): number => {
  const n = number(v);
  if (!Number.isInteger(n)) throw new InvalidArgumentError("expected an integer");
  return n;
};

export interface Globals {
  url?: string;
  apiKey?: string;
  profile?: string;
}

export async function clientOf(cmd: Command): Promise<CausewayClient> {
  const g = cmd.optsWithGlobals<Globals>();
  const conn = await resolveConnection({ url: g.url, apiKey: g.apiKey, profile: g.profile });
  return new CausewayClient({
    baseUrl: conn.url,
    apiKey: conn.apiKey,
    // Waiting on the edge limit can take a minute; say so instead of looking hung.
    onWait: (ms) => {
      if (ms >= 1000) note(`edge limit reached, retrying in ${Math.ceil(ms / 1000)} s`);
    },
  });
}

/** The status record without its large parts (`results`, `source_influence_matrix`) unless `full`. */
export function compactStatus(s: PredictionStatus, full: boolean): PredictionStatus {
  if (full) return s;
  const { results: _results, source_influence_matrix: _matrix, ...rest } = s;
  return rest;
}

/** `STAT1` where a protein is meant is `STAT1|PROTEIN` (the type is implied). */
export function proteinTarget(target: string | undefined): string | undefined {
  if (target === undefined) return undefined;
  const t = target.trim();
  if (t.includes("|")) return t;
  note(`target ${t} read as ${t}|PROTEIN`);
  return `${t}|PROTEIN`;
}
