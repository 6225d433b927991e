/**
 * What the runner recorded of the data. The contract fills cell counts and labels only for a
 * merged single-file upload and the DEG count only for a split one, so a row is shown only when
 * it has a value, and the card says why the rest is missing instead of showing blanks.
 */
import { Fragment } from "preact";
import type { PredictionStatus } from "../../client.ts";

type DatasetSummary = NonNullable<PredictionStatus["dataset_summary"]>;

export function DatasetFacts({ ds }: { ds: DatasetSummary }) {
  const count = (v: number | null | undefined) => (v == null ? null : v.toLocaleString("en"));
  const facts: [string, string | null | undefined][] = [
    ["Cell type", ds.cell_type],
    ["Condition", ds.disease_label],
    ["Cells", count(ds.n_cells)],
    ["Genes", count(ds.n_genes)],
    ["Perturbations", count(ds.n_perturbations)],
    ["DEGs", count(ds.n_degs)],
  ];
  const known = facts.filter((f): f is [string, string] => f[1] != null && f[1] !== "");
  const cellsRecorded = ds.n_cells != null || ds.n_genes != null;
  return (
    <>
      {known.length > 0 ? (
        <dl>
          {known.map(([name, value]) => (
            <Fragment key={name}>
              <dt>{name}</dt>
              <dd>{value}</dd>
            </Fragment>
          ))}
        </dl>
      ) : null}
      {cellsRecorded ? null : (
        <p class="muted small">
          Cell and gene counts are read from a single merged file; this upload did not record them.
        </p>
      )}
    </>
  );
}
