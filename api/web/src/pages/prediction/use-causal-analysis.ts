/**
 * The causal analysis explaining a row of a target_id result: started from the table, or, after
 * a reload, found again through the API's list of the prediction's analyses (a running one, else
 * the last completed). Polled until it ends (causal analyses have no event stream).
 */
import { useEffect, useState } from "preact/hooks";
import { client, type CausalAnalysisStatus } from "../../client.ts";
import { explain } from "../../explain.ts";

const POLL_MS = 3000;

export interface CausalAnalysisState {
  analysis: CausalAnalysisStatus | null;
  /** The list is being read after a reload. */
  restoring: boolean;
  error: string | null;
  starting: string | null;
  start: (target: string) => Promise<void>;
}

export function useCausalAnalysis(predictionId: string, enabled: boolean): CausalAnalysisState {
  const [analysis, setAnalysis] = useState<CausalAnalysisStatus | null>(null);
  const [restoring, setRestoring] = useState(enabled);
  const [error, setError] = useState<string | null>(null);
  const [starting, setStarting] = useState<string | null>(null);

  useEffect(() => {
    if (!enabled) return;
    let live = true;
    setRestoring(true);
    void (async () => {
      try {
        const { items } = await client().listCausalAnalyses(predictionId);
        const running = items.filter((a) => a.status === "pending" || a.status === "processing");
        const done = items.filter((a) => a.status === "completed");
        const chosen = running.at(-1) ?? done.at(-1);
        if (chosen && live) {
          const status = await client().getCausalAnalysis(chosen.causal_analysis_id);
          if (live) setAnalysis((current) => current ?? status);
        }
      } catch (err) {
        if (live) setError(explain(err));
      } finally {
        if (live) setRestoring(false);
      }
    })();
    return () => {
      live = false;
    };
  }, [predictionId, enabled]);

  useEffect(() => {
    if (!analysis || analysis.status === "completed" || analysis.status === "failed") return;
    const t = setTimeout(
      () =>
        void client()
          .getCausalAnalysis(analysis.causal_analysis_id)
          .then(setAnalysis, (e: unknown) => setError(explain(e))),
      POLL_MS,
    );
    return () => clearTimeout(t);
  }, [analysis]);

  const start = async (target: string) => {
    setStarting(target);
    setError(null);
    try {
      const created = await client().createCausalAnalysis({ prediction_id: predictionId, target });
      setAnalysis({
        causal_analysis_id: created.causal_analysis_id,
        status: created.status,
        prediction_id: predictionId,
        target,
        created_at: new Date().toISOString(),
      });
    } catch (e) {
      setError(explain(e));
    } finally {
      setStarting(null);
    }
  };
  return { analysis, restoring, error, starting, start };
}
