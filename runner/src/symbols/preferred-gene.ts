/**
 * Which gene an Ensembl id stands for when the snapshot lists it under several. NCBI attaches
 * an Ensembl gene to every record that overlaps it: the gene itself, and beside it antisense
 * or overlapping transcripts (MCL1 and ADAMTSL4-AS1), provisional LOC records (U2AF1 and
 * LOC102724594), NCBI-only hybrids (APOBEC3A and APOBEC3A_B) and readthrough genes (TECTA and
 * TBCEL-TECTA). The gene meant is the one with an HGNC-style symbol, then protein-coding, then
 * not named after another candidate, each test counting only when it tells candidates apart;
 * when several remain (paralogues sharing an id, DDT and DDTL), the id stays ambiguous.
 */

/** One symbol an Ensembl id is listed under, with its NCBI gene type (`protein-coding`, `ncRNA`, …). */
export interface GeneCandidate {
  symbol: string;
  type: string;
}

/**
 * A symbol named by HGNC's rules: NCBI's provisional records (`LOC` + the gene id) have none,
 * and HGNC symbols never hold an underscore, which NCBI uses for its own hybrid records.
 */
const hgncStyle = (c: GeneCandidate): boolean => !/^LOC\d+$/.test(c.symbol) && !c.symbol.includes("_");

const proteinCoding = (c: GeneCandidate): boolean => c.type === "protein-coding";

/** A readthrough or overlapping transcript takes the name of a gene it overlaps (`TBCEL-TECTA`, `ST7-OT3`). */
const namedAfterAnother = (c: GeneCandidate, all: readonly GeneCandidate[]): boolean =>
  all.some((o) => o.symbol !== c.symbol && c.symbol.split("-").includes(o.symbol));

/** Each test narrows the candidates when some but not all pass it. */
const NARROWING: ((c: GeneCandidate, all: readonly GeneCandidate[]) => boolean)[] = [
  hgncStyle,
  proteinCoding,
  (c, all) => !namedAfterAnother(c, all),
];

/** The position in `candidates` of the gene an Ensembl id stands for, or null when it stays ambiguous. */
export function preferredGene(candidates: readonly GeneCandidate[]): number | null {
  let kept = candidates.map((_, i) => i);
  for (const passes of NARROWING) {
    const all = kept.map((i) => candidates[i]!);
    const passing = kept.filter((i) => passes(candidates[i]!, all));
    if (passing.length > 0) kept = passing;
  }
  return kept.length === 1 ? kept[0]! : null;
}
