/**
 * The result of "Explain" on a row: everything a target_validation result shows (the graph,
 * impacted DEGs, paths, intermediary proteins and the analysis's files), read from the
 * analysis's own result files.
 */
import type { CausalGraphInputs } from "@causeway/runner/graph/inputs";
import { client, type CausalAnalysisStatus } from "../../client.ts";
import { LoadError } from "../../components/LoadError.tsx";
import { Pending } from "../../components/Pending.tsx";
import { symbol } from "../../format.ts";
import { parseInputs } from "../../graph-model.ts";
import { useLoad, type Loaded } from "../../use-load.ts";
import { artifactJson } from "./artifacts.ts";
import { Downloads } from "./Downloads.tsx";
import { explanationFromInputs } from "./explanation.ts";
import { ExplanationView } from "./ExplanationView.tsx";
import { GraphOf } from "./GraphPanel.tsx";

type Inputs = Loaded<CausalGraphInputs | null>;

export function AnalysisGraph({ analysis, inputs }: { analysis: CausalAnalysisStatus; inputs: Inputs }) {
  const done = analysis.status === "completed";
  if (analysis.status === "failed")
    return (
      <p class="error">
        The causal analysis of {symbol(analysis.target)} failed: {analysis.error_message}
      </p>
    );
  if (!done)
    return (
      <p class="muted" data-testid="analysis-running" aria-live="polite">
        Explaining {symbol(analysis.target)}… ({analysis.status}; this page shows it when it is done, even
        after a reload)
      </p>
    );
  const png = analysis.results ? (
    <img
      class="graph-png"
      data-testid="causal-graph"
      alt={`Causal graph of ${symbol(analysis.target)}`}
      src={`data:image/png;base64,${analysis.results.image_base64}`}
    />
  ) : (
    <p class="muted">This account does not receive the graph of a causal analysis.</p>
  );
  // The analysis's export is its own graph (the DEG count it ran with), whatever "DEGs shown" says.
  return (
    <GraphOf
      inputs={inputs}
      title={symbol(analysis.target)}
      fallback={png}
      networkExport={(format) =>
        client().getCausalAnalysisGraphExport(analysis.causal_analysis_id, { format })
      }
    />
  );
}

/** The graph inputs of the analysis, read once it has completed. */
export function useAnalysisInputs(analysis: CausalAnalysisStatus | null): Inputs {
  const done = analysis?.status === "completed";
  return useLoad<CausalGraphInputs | null>(
    async () => {
      const j = await artifactJson(analysis?.artifacts, "causal_graph_inputs.json");
      return j === undefined ? null : parseInputs(j);
    },
    [analysis?.causal_analysis_id, done],
    done,
  );
}

/** Impacted DEGs, paths, intermediaries and downloads of a completed analysis. */
export function AnalysisDetails({ analysis, inputs }: { analysis: CausalAnalysisStatus; inputs: Inputs }) {
  if (analysis.status !== "completed") return null;
  return (
    <section aria-labelledby="analysis-details" data-testid="analysis-details">
      <h2 id="analysis-details">How {symbol(analysis.target)} explains the DEGs</h2>
      {inputs.state === "loading" ? (
        <Pending what="the impacted DEGs, paths and intermediary proteins" />
      ) : inputs.state === "error" ? (
        <LoadError error={inputs.error} retry={inputs.retry} />
      ) : inputs.value ? (
        <ExplanationView explanation={explanationFromInputs(inputs.value)} />
      ) : (
        <p class="muted">This account does not receive the paths of a causal analysis.</p>
      )}
      {analysis.artifacts && analysis.artifacts.length > 0 && (
        <>
          <h3>Files of this causal analysis</h3>
          <Downloads
            artifacts={analysis.artifacts}
            owner={{ prediction_id: analysis.prediction_id, label: symbol(analysis.target) }}
            testid="analysis-downloads"
          />
        </>
      )}
    </section>
  );
}
