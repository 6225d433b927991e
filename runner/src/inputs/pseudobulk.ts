/**
 * Pseudo-bulk aggregation (model.md §4), the replicate rule (§3.6), donor pairing (§3.3) and
 * the per-arm expression summaries (§5.9 pooled sums, §5.10 mean_cp10k).
 */
import type { CsrMatrix } from "../anndata/index.ts";
import type { Arm, ContrastDesign, DroppedSample, PseudoBulkMatrix, PseudoBulkSample } from "./types.ts";

/** muscat's default: a pseudo-bulk sample needs this many cells to count as a replicate. */
export const MIN_CELLS = 10;

/** Observations of one file that belong to one arm of a contrast. */
export interface ArmPart {
  arm: Arm;
  matrix: CsrMatrix;
  /** L_c: each observation's total over all genes of its file. */
  totals: Float64Array;
  /** Input gene (column) → index in the gene universe, −1 when unmapped or outside it. */
  geneOf: Int32Array;
  /** Observation indices (rows of `matrix`) in this arm. */
  obs: number[];
  /** Sample id per entry of `obs`. */
  sampleOf: string[];
  /** Donor per entry of `obs` (null when missing or no donor column). */
  donorOf: (string | null)[] | null;
}

/** The aggregated contrast before its checks are interpreted. */
export interface Aggregate {
  pseudoBulk: PseudoBulkMatrix;
  dropped: DroppedSample[];
  design: ContrastDesign;
  /** Warnings of the design: `donor_not_paired`, `paired_by_sample_ids`. */
  warnings: string[];
  pooled: { counts: Float64Array; librarySize: [number, number] };
  meanCp10k: { control: Float64Array; perturbed: Float64Array };
  /** Samples kept per arm. */
  samplesPerArm: [number, number];
}

interface SampleAcc {
  sample: string;
  arm: Arm;
  nCells: number;
  librarySize: number;
  donors: Set<string | null>;
  part: number;
  rows: number[];
}

const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Sums raw counts per (sample, arm) over `parts`, drops samples with fewer than `minCells`
 * observations (pass 1 for bulk), decides the design, and computes pooled sums and mean_cp10k
 * over every observation of each arm.
 */
export function aggregate(genes: string[], parts: ArmPart[], minCells: number): Aggregate {
  const G = genes.length;
  const accs = new Map<string, SampleAcc>();
  parts.forEach((part, p) => {
    part.obs.forEach((row, k) => {
      const key = `${part.arm}\u0000${part.sampleOf[k]}`;
      let acc = accs.get(key);
      if (!acc)
        accs.set(
          key,
          (acc = {
            sample: part.sampleOf[k]!,
            arm: part.arm,
            nCells: 0,
            librarySize: 0,
            donors: new Set(),
            part: p,
            rows: [],
          }),
        );
      if (acc.part !== p) acc.part = -1;
      acc.nCells++;
      acc.librarySize += part.totals[row]!;
      acc.donors.add(part.donorOf ? part.donorOf[k]! : null);
      acc.rows.push(row);
    });
  });
  const all = [...accs.values()].sort((a, b) => a.arm - b.arm || byteOrder(a.sample, b.sample));
  const kept = all.filter((a) => a.nCells >= minCells);
  const dropped = all
    .filter((a) => a.nCells < minCells)
    .map((a) => ({ sample: a.sample, arm: a.arm, nCells: a.nCells }));
  const samplesPerArm: [number, number] = [
    kept.filter((a) => a.arm === 0).length,
    kept.filter((a) => a.arm === 1).length,
  ];

  const { design, donorOf, warnings } = decideDesign(
    kept,
    parts.some((p) => p.donorOf !== null),
  );
  const bothArms = new Set(
    kept.filter((a) => kept.some((b) => b.sample === a.sample && b.arm !== a.arm)).map((a) => a.sample),
  );
  const samples: PseudoBulkSample[] = kept.map((a, j) => ({
    id: bothArms.has(a.sample) ? `${a.sample}|${a.arm === 0 ? "control" : "perturbed"}` : a.sample,
    sample: a.sample,
    arm: a.arm,
    donor: donorOf[j]!,
    nCells: a.nCells,
    librarySize: a.librarySize,
  }));
  const S = samples.length;
  const counts = new Float64Array(G * S);
  const sampleIndex = new Map<string, number>();
  kept.forEach((a, j) => sampleIndex.set(`${a.arm}\u0000${a.sample}`, j));

  const pooled = new Float64Array(G * 2);
  const poolLib: [number, number] = [0, 0];
  const cp10k = [new Float64Array(G), new Float64Array(G)] as const;
  const nObsArm = [0, 0];
  for (const part of parts) {
    const m = part.matrix;
    part.obs.forEach((row, k) => {
      const j = sampleIndex.get(`${part.arm}\u0000${part.sampleOf[k]}`);
      const L = part.totals[row]!;
      poolLib[part.arm] += L;
      nObsArm[part.arm]!++;
      const cp = cp10k[part.arm];
      for (let q = m.indptr[row]!; q < m.indptr[row + 1]!; q++) {
        const g = part.geneOf[m.indices[q]!]!;
        if (g < 0) continue;
        const v = m.data[q]!;
        pooled[g * 2 + part.arm]! += v;
        if (L > 0) cp[g]! += (1e4 * v) / L;
        if (j !== undefined) counts[g * S + j]! += v;
      }
    });
  }
  for (const arm of [0, 1] as const) {
    if (nObsArm[arm]! > 0) for (let g = 0; g < G; g++) cp10k[arm][g]! /= nObsArm[arm]!;
  }
  return {
    pseudoBulk: { genes, samples, counts },
    dropped,
    design,
    warnings,
    pooled: { counts: pooled, librarySize: poolLib },
    meanCp10k: { control: cp10k[0], perturbed: cp10k[1] },
    samplesPerArm,
  };
}

/**
 * Donor per kept sample and whether the design is paired: a donor column is used only when
 * every sample has one donor and every donor level has samples in both arms; without a donor
 * column, a sample id present in both arms serves as the donor. That reading is §3.3's, but ids
 * that only number the replicates of each arm (1, 2, 3 in both) read the same way, so a design
 * paired on sample ids says so (`paired_by_sample_ids`).
 */
function decideDesign(
  kept: SampleAcc[],
  hasDonorColumn: boolean,
): { design: ContrastDesign; donorOf: (string | null)[]; warnings: string[] } {
  const warnings: string[] = [];
  let donorOf: (string | null)[];
  if (hasDonorColumn) {
    donorOf = kept.map((a) => (a.donors.size === 1 ? [...a.donors][0]! : null));
  } else {
    const shared = kept.some((a) => kept.some((b) => b.sample === a.sample && b.arm !== a.arm));
    donorOf = shared ? kept.map((a) => a.sample) : kept.map(() => null);
  }
  const levels = [...new Set(donorOf.filter((d): d is string => d !== null))].sort(byteOrder);
  const complete = donorOf.every((d) => d !== null);
  const inBoth = levels.every((d) =>
    [0, 1].every((arm) => kept.some((a, j) => a.arm === arm && donorOf[j] === d)),
  );
  const paired = complete && levels.length >= 2 && inBoth;
  if (!paired && (hasDonorColumn || levels.length > 0)) warnings.push("donor_not_paired");
  if (paired && !hasDonorColumn) warnings.push("paired_by_sample_ids");
  return { design: { paired, donors: paired ? levels : [] }, donorOf, warnings };
}
