/**
 * The warnings a prediction reports with its result (the status record's `warnings`): what the
 * runner already knows that changes how a result should be read, each as a stable code and a
 * sentence. Collected from the contrasts (input checks, DE), the scores and the gene mapping.
 */
import { z } from "zod";
import type { JobWarning, Species } from "@causeway/contract";
import type { ScoreTargetsResult } from "../scoring/index.ts";
import { looksLikeMouse, type OrthologueTable } from "../symbols/index.ts";
import type { Contrast } from "./contrast.ts";

/** DEGs above this share of the universe leave little background to compare with. */
const MOST_OF_UNIVERSE = 0.5;
/** Unresolved genes of a count matrix worth a warning (a few are normal). */
const UNRESOLVED_SHARE = 0.1;

const INPUT_WARNINGS: Record<string, string> = {
  pooled_fold_changes:
    "An arm has fewer than 2 samples: fold changes pool the cells of each arm and no p-values of differential expression were computed.",
  cell_type_mismatch: "The control and perturbed files name different cell types.",
  donor_not_paired:
    "A donor column was found but donors are not shared by both arms: the design is not paired.",
  paired_by_sample_ids:
    "The same sample ids appear in both arms, so the design was read as paired (each id one donor or culture under both conditions). If the ids only number the replicates of each condition (1, 2, 3 in both), give every sample a unique id (e.g. ctrl_1, stim_1), or set donor_column to the column that names each sample's donor.",
  arm_labels_unclear:
    "The condition labels inside the control and perturbed files do not clearly name their arms (a control file not named like a control, a perturbed file named like one, or a file holding several conditions): check that each file was uploaded as the right arm.",
};

const examples = (xs: readonly string[]): string => xs.slice(0, 5).join(", ");

const AmbiguousDegs = z.array(z.object({ input: z.string(), symbols: z.array(z.string()) }));

export interface WarningInputs {
  contrasts: readonly Contrast[];
  scores: readonly ScoreTargetsResult[];
  species: Species;
  orthologues: OrthologueTable | null;
  /** The DEG list as supplied (split uploads). */
  suppliedDegs: readonly string[] | null;
}

export function collectWarnings(w: WarningInputs): JobWarning[] {
  const out = new Map<string, JobWarning>();
  const add = (code: string, message: string): void => {
    if (!out.has(code)) out.set(code, { code, message: message.slice(0, 2000) });
  };
  w.contrasts.forEach((c, i) => {
    const label = c.prefix ? ` (result set ${c.prefix.replace(/\/$/, "")})` : "";
    for (const d of c.de?.warnings ?? []) if (d.code === "low_residual_df") add(d.code, d.message + label);
    const meta = c.prepared?.metadata;
    for (const code of meta?.warnings ?? []) {
      const base = code.split(":")[0]!;
      if (base === "no_sample_column")
        add(
          base,
          "A single-cell file has no sample column: its cells were pooled as one sample (set sample_column).",
        );
      else if (base === "no_cell_type_column")
        add(
          base,
          "A single-cell file has no cell-type column: every cell was analysed together (set cell_type_column).",
        );
      else if (INPUT_WARNINGS[base]) add(base, INPUT_WARNINGS[base]);
    }
    const cut = meta?.subsampled ?? [];
    if (cut.length > 0)
      add(
        "subsampled",
        `The data were subsampled before upload (${cut.map((a) => `${a.arm}: ${a.to} of ${a.from} observations`).join("; ")}); results rest on the cells kept.`,
      );
    const genes = meta?.genes;
    if (genes && genes.nInput > 0 && genes.nUnresolved / genes.nInput > UNRESOLVED_SHARE)
      add(
        "unresolved_genes",
        `${genes.nUnresolved} of ${genes.nInput} genes of the data could not be mapped to human HGNC symbols (e.g. ${examples(genes.unresolvedExamples)}); they take no part in the analysis.`,
      );
    const unresolvedDegs = c.metadata["unresolved_degs"];
    if (Array.isArray(unresolvedDegs) && unresolvedDegs.length > 0)
      add(
        "unresolved_degs",
        `${unresolvedDegs.length} of ${c.summary?.n_degs ?? unresolvedDegs.length} DEG entries were not recognised as genes (e.g. ${examples(unresolvedDegs.map(String))}).`,
      );
    const ambiguous = AmbiguousDegs.safeParse(c.metadata["ambiguous_degs"]);
    if (ambiguous.success && ambiguous.data.length > 0)
      add(
        "ambiguous_degs",
        `${ambiguous.data.length} DEG entries name more than one gene and were left out (${examples(
          ambiguous.data.map((a) => `${a.input}: ${a.symbols.join(" or ")}`),
        )}); list the gene meant by its symbol.`,
      );
    const s = w.scores[i];
    for (const sw of s?.warnings ?? []) add(sw.code, sw.message + label);
    if (s && s.N > 0 && s.n / s.N > MOST_OF_UNIVERSE)
      add(
        "degs_cover_most_of_universe",
        `${s.n} of the ${s.N} genes of the background universe are DEGs${label}: the enrichment has little background to compare with; use a stricter DEG rule.`,
      );
  });
  if (w.species === "human") {
    const ids = [
      ...(w.suppliedDegs ?? []),
      ...w.contrasts.flatMap((c) => c.prepared?.metadata.genes.sampleIdentifiers ?? []),
    ];
    if (looksLikeMouse(ids, w.orthologues))
      add(
        "species_mismatch_suspected",
        "Most gene identifiers look like mouse genes (symbols spelled like Stat1, or Ensembl ids ENSMUSG…) but were read as human genes; if the data are from mouse, submit again with species=mouse.",
      );
  }
  return [...out.values()];
}
