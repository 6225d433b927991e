/** Impacted DEGs (every one reachable), intermediary proteins and the causal paths of a target. */
import { useState } from "preact/hooks";
import { num } from "../../format.ts";
import { INTERMEDIARY_TOP_DEGS, pathText, type Explanation } from "./explanation.ts";

const FIRST_CHIPS = 60;
const PATH_PAGE = 100;

function ImpactedDegs({ degs }: { degs: string[] }) {
  const [all, setAll] = useState(false);
  const shown = all ? degs : degs.slice(0, FIRST_CHIPS);
  return (
    <>
      <h3>Impacted DEGs</h3>
      <p class="muted small">
        {degs.length.toLocaleString("en")} DEGs are explained by the target's paths, best explained first.
      </p>
      <p class="chips" data-testid="impacted-degs">
        {shown.map((d) => (
          <span class="chip" key={d}>
            {d}
          </span>
        ))}
      </p>
      {degs.length > FIRST_CHIPS && (
        <button
          type="button"
          class="link-button"
          data-testid="all-impacted-degs"
          aria-expanded={all}
          onClick={() => setAll(!all)}
        >
          {all ? "Show the first 60 only" : `Show all ${degs.length.toLocaleString("en")} impacted DEGs`}
        </button>
      )}
    </>
  );
}

function PathsTable({ paths }: { paths: Explanation["paths"] }) {
  const [n, setN] = useState(PATH_PAGE);
  return (
    <>
      <h3>Causal paths</h3>
      <p class="muted small">
        From the target to each DEG; “(RNA)” marks a gene's transcript, the rest are proteins.
      </p>
      <div class="table-scroll short" tabIndex={0} role="region" aria-label="Causal paths">
        <table class="data compact" data-testid="causal-paths">
          <thead>
            <tr>
              <th scope="col">DEG</th>
              <th scope="col">Path</th>
              <th scope="col" title="Share of the target's influence on the DEG carried by this path">
                Score
              </th>
              <th scope="col">DEG log2FC</th>
            </tr>
          </thead>
          <tbody>
            {paths.slice(0, n).map((r, i) => (
              <tr key={i}>
                <td class="sym">{r.deg}</td>
                <td class="path">{pathText(r.steps)}</td>
                <td class="num">{r.score === null ? "—" : num(r.score)}</td>
                <td class="num">{r.degLog2fc === null ? "—" : num(r.degLog2fc)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {paths.length > n && (
        <p class="small">
          First {n.toLocaleString("en")} of {paths.length.toLocaleString("en")} paths.{" "}
          <button type="button" class="link-button" onClick={() => setN(n + 5 * PATH_PAGE)}>
            Show {Math.min(5 * PATH_PAGE, paths.length - n).toLocaleString("en")} more
          </button>{" "}
          (all of them are in causal_paths.tsv among the downloads).
        </p>
      )}
    </>
  );
}

export function ExplanationView({ explanation: e }: { explanation: Explanation }) {
  return (
    <div class="grid2 explanation" data-testid="explanation">
      <div class="card">
        <ImpactedDegs degs={e.degs} />
        <h3 class="after-list">Intermediary proteins</h3>
        <p class="muted small">
          Proteins on the paths to the top {INTERMEDIARY_TOP_DEGS} impacted DEGs, most used first.
        </p>
        <p class="chips" data-testid="intermediaries">
          {e.intermediaries.length > 0
            ? e.intermediaries.map((x) => (
                <span class="chip alt" key={x}>
                  {x}
                </span>
              ))
            : "None: every kept path goes straight from the target to the DEG."}
        </p>
      </div>
      <div class="card">
        <PathsTable paths={e.paths} />
      </div>
    </div>
  );
}
