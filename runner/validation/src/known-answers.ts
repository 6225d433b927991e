/**
 * Known-answer cases of model.md §16.1 (`known_answers/cases.tsv` and one folder per case):
 * DEG list, DE table and expected/accepted targets, normalized with the model's symbol table.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { parseTsv } from "@causeway/runner/artifacts";
import { readDeTable } from "@causeway/runner/jobs";
import type { ControlDepth } from "@causeway/runner/scoring";
import type { SymbolTable } from "@causeway/runner/symbols";

const CaseJson = z.object({
  id: z.string(),
  expected_target: z.string(),
  accepted_targets: z.array(z.string()),
});

/** One case, ready for scoring. */
export interface KnownAnswerCase {
  id: string;
  /** Expected target symbol. */
  expected: string;
  /** Accepted target symbols (include the expected one). */
  accepted: string[];
  /** DEG symbols after normalization, deduplicated, in file order. */
  degs: string[];
  /** Universe candidates: DE-table genes plus DEGs, normalized. */
  universe: string[];
  /** log2FC by normalized symbol, from the DE table. */
  logFC: Map<string, number>;
  /**
   * A signed DE statistic by normalized symbol (the ULM baseline regresses it on regulon
   * weights): the table's `t` or `stat` column, else sign(logFC)·sqrt(LR) for an edgeR LRT
   * table, else logFC.
   */
  stat?: Map<string, number>;
  /** mean CP10k of the control arm, when the case was made from counts. */
  meanCp10kControl?: Map<string, number>;
  /** Pooled control-arm counts, when the case was made from counts. */
  controlDepth?: ControlDepth;
}

/**
 * The signed statistic of a DE table (see KnownAnswerCase.stat): its test statistic as
 * readDeTable reads it, else its fold changes.
 */
export function statOf(text: string, symbols: Pick<SymbolTable, "resolve">): Map<string, number> {
  const table = readDeTable(text, symbols);
  const values = table.stat ?? table.logFC;
  const out = new Map<string, number>();
  table.genes.forEach((g, i) => {
    const v = values[i];
    if (v !== null && v !== undefined && Number.isFinite(v)) out.set(g, v);
  });
  return out;
}

const symbolOf = (id: string): string => id.split("|")[0]!;

/** Case ids listed in cases.tsv, in file order. */
export async function listCases(dir: string): Promise<string[]> {
  const { columns, rows } = parseTsv(await readFile(join(dir, "cases.tsv"), "utf8"));
  const i = columns.indexOf("id");
  return rows.map((r) => r[i]!);
}

/**
 * Reads one case. The DE table's gene column is its curated `hgnc_symbol` column when present
 * (the §16.5 reference universes were built from it), else its first column.
 */
export async function readCase(dir: string, id: string, symbols: SymbolTable): Promise<KnownAnswerCase> {
  const caseDir = join(dir, id);
  const meta = CaseJson.parse(JSON.parse(await readFile(join(caseDir, "case.json"), "utf8")));
  const rawDegs = z.array(z.string()).parse(JSON.parse(await readFile(join(caseDir, "degs.json"), "utf8")));
  const tableText = await readFile(join(caseDir, "de_table.tsv"), "utf8");
  const table = readDeTable(tableText, symbols);
  const normalize = (xs: Iterable<string>): string[] => {
    const out = new Set<string>();
    for (const x of xs) {
      const s = symbols.resolve(x);
      if (s !== null) out.add(s);
    }
    return [...out];
  };
  const logFC = new Map<string, number>();
  table.genes.forEach((g, i) => {
    const v = table.logFC[i];
    if (v !== null && v !== undefined && Number.isFinite(v)) logFC.set(g, v);
  });
  return {
    id: meta.id,
    expected: symbolOf(meta.expected_target),
    accepted: meta.accepted_targets.map(symbolOf),
    degs: normalize(rawDegs),
    universe: [...new Set([...table.genes, ...normalize(rawDegs)])],
    logFC,
    stat: statOf(tableText, symbols),
  };
}
