/**
 * One prediction. Completed: the answer first (the ranked targets), then the causal graph and
 * the volcano, how the target explains the DEGs, the downloads, and the facts of the run folded
 * below. Running: live progress and the facts. Failed: what went wrong and a way to fix and
 * resubmit. The 24 MB status body is never loaded: the status is read without preview rows and
 * the table is paged by the service. A first read that found the service unreachable offers to
 * try again, and does by itself when the browser comes back online.
 */
import { useEffect, useState } from "preact/hooks";
import type { CausalGraphInputs } from "@causeway/runner/graph/inputs";
import { client, type PredictionStatus } from "../../client.ts";
import { explain, retryable } from "../../explain.ts";
import { LoadError } from "../../components/LoadError.tsx";
import { focusHeading } from "../../router.ts";
import { Pending } from "../../components/Pending.tsx";
import { JobAnnouncer, Progress, StatusBadge } from "../../components/StatusBadge.tsx";
import { TargetTable } from "../../components/target-table/TargetTable.tsx";
import { parseDegs, type DegPoint } from "../../components/Volcano.tsx";
import { symbol } from "../../format.ts";
import { parseInputs } from "../../graph-model.ts";
import { useLiveStatus } from "../../live.ts";
import { useLoad, useRetryWhenOnline } from "../../use-load.ts";
import { AnalysisDetails, AnalysisGraph, useAnalysisInputs } from "./AnalysisPanel.tsx";
import { artifactJson, artifactText } from "./artifacts.ts";
import { predictionTitle } from "./download-name.ts";
import { Downloads } from "./Downloads.tsx";
import { GraphOf, PredictionGraphPng } from "./GraphPanel.tsx";
import { Summary, warningsOf, type RunParameters } from "./Summary.tsx";
import { useCausalAnalysis } from "./use-causal-analysis.ts";
import { ValidationExplanation } from "./ValidationExplanation.tsx";
import { VolcanoPanel } from "./VolcanoPanel.tsx";

/** The status without its preview rows: the summary and the download links only. */
const statusOnly = (id: string) =>
  client().getPrediction(id, { max_rows: 1, max_source_influence_rows: 1, max_columns: 1 });

/** The folded facts open when a link points at them. */
const openDetails = () => {
  const d = document.getElementById("details");
  if (d instanceof HTMLDetailsElement) d.open = true;
};

export function PredictionPage({ id }: { id: string }) {
  const [p, setP] = useState<PredictionStatus | null>(null);
  const [error, setError] = useState<{ text: string; retryable: boolean } | null>(null);
  const [search, setSearch] = useState("");
  const [highlight, setHighlight] = useState<string | null>(null);

  const load = () =>
    statusOnly(id).then(setP, (e: unknown) => setError({ text: explain(e), retryable: retryable(e) }));
  useEffect(() => {
    setError(null);
    void load();
  }, [id]);
  const tryAgain = () => {
    // Focus on the button (which goes) or on nothing moves to the page's h1 when it comes.
    const at = document.activeElement;
    if (at === null || at === document.body || at.closest("[data-testid=load-error]")) focusHeading();
    setError(null);
    void load();
  };
  useRetryWhenOnline(error?.retryable === true, tryAgain);
  const live = useLiveStatus(p ? id : "", p ?? { status: "unknown" }, () => void load());
  const status = p ? (live.status === "unknown" ? p.status : live.status) : null;
  const completed = p?.status === "completed";
  const validation = p?.job_type === "target_validation";
  // Side-by-side result tabs are told apart by their title: the label (or short id) and status.
  useEffect(() => {
    if (p && status) document.title = predictionTitle(p, status);
  }, [p, status]);

  const params = useLoad<RunParameters>(
    async () => {
      const j = await artifactJson(p?.artifacts, "run_metadata.json");
      return ((j as { parameters?: Record<string, unknown> } | undefined)?.parameters ??
        null) as RunParameters;
    },
    [id, completed],
    completed,
  );
  const degs = useLoad<DegPoint[]>(
    async () => {
      const t = await artifactText(p?.artifacts, "degs.tsv");
      return t === undefined ? [] : parseDegs(t);
    },
    [id, completed],
    completed,
  );
  const graphInputs = useLoad<CausalGraphInputs | null>(
    async () => {
      const j = await artifactJson(p?.artifacts, "causal_graph_inputs.json");
      return j === undefined ? null : parseInputs(j);
    },
    [id, completed],
    completed && validation,
  );
  const explainer = useCausalAnalysis(id, completed && !validation);
  const analysisInputs = useAnalysisInputs(explainer.analysis);

  // The live region is on the page from the start, so that its later sentences are announced.
  const announcer = (
    <JobAnnouncer
      state={{
        status: status ?? "unknown",
        pct: live.progress_pct,
        step: live.processing_step,
      }}
    />
  );
  if (error)
    return (
      <>
        {announcer}
        <LoadError error={error.text} retry={error.retryable ? tryAgain : undefined} alert />
      </>
    );
  if (!p)
    return (
      <>
        {announcer}
        <Pending what="the prediction" />
      </>
    );
  const active = status === "pending" || status === "processing";
  const warnings = warningsOf(p);
  const run = (row: { cells: Record<string, unknown> }) => {
    void explainer
      .start(String(row.cells.id))
      .then(() => document.getElementById("graph")?.scrollIntoView({ behavior: "smooth" }));
  };
  const params_ = params.state === "ok" ? params.value : params.state === "error" ? null : undefined;
  return (
    <section class="prediction">
      {announcer}
      <div class="page-head">
        <div class="page-title">
          <p class="crumbs">
            <a href="/app/">Predictions</a> /
          </p>
          <h1 class="title-text">{p.label || `Prediction ${p.prediction_id.slice(0, 8)}`}</h1>
        </div>
        <div class="head-side">
          <span data-testid="prediction-status" class="status-line">
            <StatusBadge status={status ?? p.status} />
          </span>
        </div>
      </div>
      {active && <Progress pct={live.progress_pct} step={live.processing_step} />}
      {status === "failed" && (
        <p class="error" role="alert">
          The job failed: {live.error_message ?? p.error_message}{" "}
          {p.error_code ? <span class="muted">({p.error_code})</span> : null}{" "}
          <a class="button" href={`/app/new?from=${id}`} data-testid="resubmit">
            Fix and resubmit
          </a>
        </p>
      )}
      {!completed && <Summary p={p} params={undefined} />}
      {completed && (
        <>
          {warnings.length > 0 && (
            <p class="warn-line" data-testid="warnings-line">
              {warnings.length === 1 ? "1 warning" : `${warnings.length} warnings`} about this run:{" "}
              <a href="#details" onClick={openDetails}>
                read them below
              </a>
              .
            </p>
          )}
          <h2 id="targets" class="targets-head">
            Ranked targets{" "}
            <a class="help-link" href="/app/how-to-read#targets" aria-label="How to read the ranked targets">
              ?
            </a>
            <span class="muted small targets-intro">
              Every candidate protein, best explanation of the DEGs first (rank 1). Click a column to sort.
            </span>
          </h2>
          <TargetTable
            predictionId={id}
            search={search}
            onSearch={setSearch}
            highlight={highlight}
            roughCalibration={warnings.some((w) => w.code === "few_development_experiments")}
            {...(validation ? {} : { action: { label: "Explain", run, busyId: explainer.starting } })}
          />
          {explainer.error && (
            <p class="error" role="alert">
              {explainer.error}
            </p>
          )}
          <div class="plots">
            <div class="card" id="graph">
              <h2>
                Causal graph{" "}
                {validation && p.target
                  ? `of ${symbol(p.target)}`
                  : explainer.analysis
                    ? `of ${symbol(explainer.analysis.target)}`
                    : ""}
              </h2>
              {validation ? (
                <GraphOf
                  inputs={graphInputs}
                  title={symbol(p.target)}
                  fallback={<PredictionGraphPng id={id} target={symbol(p.target)} />}
                  networkExport={(format, n) => client().getCausalGraphExport(id, { top_n_degs: n, format })}
                />
              ) : explainer.analysis ? (
                <AnalysisGraph analysis={explainer.analysis} inputs={analysisInputs} />
              ) : explainer.restoring ? (
                <Pending what="the causal analyses of this prediction" />
              ) : (
                <p class="muted" data-testid="explain-hint">
                  Choose “Explain” on a row of the table: a causal analysis of that candidate runs, and its
                  graph, paths and impacted DEGs appear here.
                </p>
              )}
            </div>
            <VolcanoPanel
              degs={degs}
              highlight={highlight}
              onPick={(g, fromList) => {
                setHighlight(g);
                setSearch(g);
                // From the keyboard list, focus goes where the gene is looked for: the table's search
                // (its row count is announced); a click scrolls there and leaves focus alone.
                if (fromList)
                  document.querySelector<HTMLInputElement>(".target-table input[type=search]")?.focus();
                else document.getElementById("targets")?.scrollIntoView({ behavior: "smooth" });
              }}
              onClear={() => {
                setHighlight(null);
                setSearch("");
              }}
            />
          </div>
          {validation ? (
            <>
              <h2>How {symbol(p.target)} explains the DEGs</h2>
              <ValidationExplanation id={id} inputs={graphInputs} />
            </>
          ) : explainer.analysis ? (
            <AnalysisDetails analysis={explainer.analysis} inputs={analysisInputs} />
          ) : null}
          <h2>Downloads</h2>
          {p.artifacts && p.artifacts.length > 0 ? (
            <Downloads artifacts={p.artifacts} owner={p} />
          ) : (
            <p class="muted">This account tier does not receive the result files of this job type.</p>
          )}
          <details class="details-section" id="details">
            <summary>
              <h2>About this prediction</h2>
              <span class="muted small">
                inputs, dataset, timings, parameters{warnings.length ? ", warnings" : ""}
              </span>
            </summary>
            <Summary p={p} params={params_} />
          </details>
        </>
      )}
    </section>
  );
}
