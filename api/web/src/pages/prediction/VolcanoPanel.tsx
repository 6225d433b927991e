/** The volcano plot of a prediction's DE table (degs.tsv), or why there is none. */
import { LoadError } from "../../components/LoadError.tsx";
import { Pending } from "../../components/Pending.tsx";
import { GeneList, Volcano, type DegPoint } from "../../components/Volcano.tsx";
import type { Loaded } from "../../use-load.ts";

export function VolcanoPanel({
  degs,
  highlight,
  onPick,
  onClear,
}: {
  degs: Loaded<DegPoint[]>;
  highlight: string | null;
  /** A gene clicked in the plot, or chosen in its keyboard list (`fromList`). */
  onPick: (gene: string, fromList: boolean) => void;
  onClear: () => void;
}) {
  return (
    <div class="card">
      <h2>Volcano plot</h2>
      <p class="muted small">
        Each dot is a gene of the DE table; hover for its name, click to find it among the candidates.
      </p>
      {degs.state === "loading" ? (
        <Pending what="the DE table" class="volcano placeholder" />
      ) : degs.state === "error" ? (
        <LoadError error={degs.error} retry={degs.retry} />
      ) : degs.value.length === 0 ? (
        <div class="volcano placeholder" data-testid="volcano-plot">
          No DE table for this prediction (a supplied DEG list has no fold changes, or this account does not
          receive the files).
        </div>
      ) : (
        <>
          <Volcano points={degs.value} highlight={highlight} onPick={(g) => onPick(g, false)} />
          <GeneList points={degs.value} highlight={highlight} onPick={(g) => onPick(g, true)} />
        </>
      )}
      {highlight && (
        <p class="small">
          Showing {highlight}.{" "}
          <button type="button" class="link-button" onClick={onClear}>
            Clear
          </button>
        </p>
      )}
    </div>
  );
}
