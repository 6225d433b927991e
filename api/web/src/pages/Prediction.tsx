/**
 * One prediction: summary (inputs, dataset, model and parameters, warnings, timings) with live
 * progress; when completed, the ranked target table, the volcano plot, the causal graph (of the
 * validated target, or of a row explained by a one-click causal analysis), the impacted DEGs,
 * causal paths and intermediary proteins, and every download. The 24 MB status body is never
 * loaded: the status is read without preview rows and the table is paged by the server.
 */
import { Fragment } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { CausalGraphInputs } from "@causeway/runner/graph/inputs";
import { STATUS_FIELDS } from "@causeway/api/schemas/field-docs.ts";
import {
  api,
  explain,
  sameOriginLink,
  type CausalAnalysisStatus,
  type CausalPaths,
  type PredictionStatus,
} from "../api.ts";
import { CausalGraph } from "../components/CausalGraph.tsx";
import { Progress, StatusBadge } from "../components/StatusBadge.tsx";
import { TargetTable } from "../components/TargetTable.tsx";
import { Volcano, parseDegs, type DegPoint } from "../components/Volcano.tsx";
import { dateTime, duration, num, symbol } from "../format.ts";
import { parseInputs } from "../graph-model.ts";
import { useLiveStatus } from "../live.ts";

type Artifacts = { name: string; url: string }[];

/** The artifact of the first result set: `name`, or `<prefix>.name` for a job with several. */
function artifactNamed(artifacts: Artifacts | null | undefined, name: string) {
  return artifacts?.find((x) => x.name === name) ?? artifacts?.find((x) => x.name.endsWith(`.${name}`));
}

async function artifactJson(artifacts: Artifacts | null | undefined, name: string): Promise<unknown> {
  const a = artifactNamed(artifacts, name);
  if (!a) return undefined;
  return (await api.artifact(a.url)).json();
}

type DatasetSummary = NonNullable<PredictionStatus["dataset_summary"]>;

/**
 * What the runner recorded of the data. The contract fills cell counts and labels only for a
 * merged single-file upload and the DEG count only for a split one, so a row is shown only when
 * it has a value, and the card says why the rest is missing instead of showing blanks.
 */
function DatasetFacts({ ds }: { ds: DatasetSummary }) {
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

function Summary({ p, meta }: { p: PredictionStatus; meta: Record<string, unknown> | null }) {
  const ds = p.dataset_summary;
  const params = (meta?.parameters ?? null) as Record<string, unknown> | null;
  const warnings = (p as { warnings?: { code: string; message: string }[] }).warnings ?? [];
  return (
    <div class="summary-grid">
      <div class="card">
        <h3>Inputs</h3>
        <dl>
          <dt title={STATUS_FIELDS.job_type.summary}>Job type</dt>
          <dd>{p.job_type === "target_validation" ? "target validation" : "target identification"}</dd>
          {p.target && (
            <>
              <dt>Target</dt>
              <dd>{symbol(p.target)}</dd>
            </>
          )}
          <dt>Model version</dt>
          <dd>{p.model_version ?? "—"}</dd>
          <dt>Prediction id</dt>
          <dd class="mono small">{p.prediction_id}</dd>
        </dl>
      </div>
      <div class="card" data-testid="dataset-card">
        <h3>Dataset</h3>
        {ds ? <DatasetFacts ds={ds} /> : <p class="muted">Known when the runner has read the data.</p>}
      </div>
      <div class="card">
        <h3>Timings</h3>
        <dl>
          <dt>Submitted</dt>
          <dd>{dateTime(p.created_at)}</dd>
          <dt>Started</dt>
          <dd>{dateTime(p.started_at)}</dd>
          <dt>Finished</dt>
          <dd>{dateTime(p.completed_at)}</dd>
          <dt>Queue · run</dt>
          <dd>
            {duration(p.created_at, p.started_at)} · {duration(p.started_at, p.completed_at)}
          </dd>
        </dl>
      </div>
      {params && (
        <div class="card">
          <h3>Parameters</h3>
          <dl class="params">
            {Object.entries(params).map(([k, v]) => (
              <>
                <dt>{k.replaceAll("_", " ")}</dt>
                <dd>{v === null ? "default" : typeof v === "number" ? num(v) : String(v)}</dd>
              </>
            ))}
          </dl>
        </div>
      )}
      {warnings.length > 0 && (
        <div class="card warn-card" data-testid="warnings">
          <h3>Warnings</h3>
          <ul>
            {warnings.map((w) => (
              <li key={w.code}>{w.message}</li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

/** Impacted DEGs, causal paths and intermediary proteins of a completed target_validation. */
function Explanation({ id }: { id: string }) {
  const [paths, setPaths] = useState<CausalPaths | null>(null);
  const [inter, setInter] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.causalPaths(id).then(setPaths, (e: unknown) => setError(explain(e)));
    api.intermediaries(id, 20).then(
      (r) => setInter(r.proteins),
      () => setInter(null),
    );
  }, [id]);
  if (error) return <p class="error">{error}</p>;
  if (!paths) return <p class="muted">Loading the causal paths…</p>;
  return (
    <div class="grid2 explanation">
      <div class="card">
        <h3>Impacted DEGs</h3>
        <p class="muted small">
          {paths.degs.length.toLocaleString("en")} of the DEGs are explained by the target's paths (
          {paths.degs_total.toLocaleString("en")} impacted in all), best first.
        </p>
        <p class="chips" data-testid="impacted-degs">
          {paths.degs.slice(0, 60).map((d) => (
            <span class="chip" key={d}>
              {symbol(d)}
            </span>
          ))}
          {paths.degs.length > 60 ? <span class="muted"> and {paths.degs.length - 60} more</span> : null}
        </p>
        <h3>Intermediary proteins</h3>
        <p class="muted small">Proteins on the paths to the top 20 impacted DEGs, most used first.</p>
        <p class="chips">
          {inter
            ? inter.slice(0, 40).map((x) => (
                <span class="chip alt" key={x}>
                  {symbol(x)}
                </span>
              ))
            : "—"}
        </p>
      </div>
      <div class="card">
        <h3>Causal paths</h3>
        <div class="table-scroll short" tabIndex={0} role="region" aria-label="Causal paths">
          <table class="data compact">
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
              {paths.paths.slice(0, 100).map((r, i) => (
                <tr key={i}>
                  <td class="sym">{symbol(r.deg)}</td>
                  <td class="path">{r.path.split(">").join(" → ")}</td>
                  <td class="num">
                    {r.score_path_given_target === null ? "—" : num(r.score_path_given_target)}
                  </td>
                  <td class="num">{r.deg_logFC === null ? "—" : num(r.deg_logFC)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {paths.paths.length > 100 && (
          <p class="muted small">
            First 100 of {paths.paths.length.toLocaleString("en")} paths; the full table is causal_paths.tsv
            below.
          </p>
        )}
      </div>
    </div>
  );
}

/** The graph of a causal analysis started from a row, shown when it is done. */
function AnalysisResult({ analysis }: { analysis: CausalAnalysisStatus }) {
  const [inputs, setInputs] = useState<CausalGraphInputs | null>(null);
  useEffect(() => {
    if (analysis.status !== "completed") return;
    artifactJson(analysis.artifacts, "causal_graph_inputs.json").then(
      (j) => j !== undefined && setInputs(parseInputs(j)),
      () => setInputs(null),
    );
  }, [analysis.status]);
  if (analysis.status === "failed")
    return (
      <p class="error">
        The causal analysis of {symbol(analysis.target)} failed: {analysis.error_message}
      </p>
    );
  if (analysis.status !== "completed")
    return (
      <p class="muted" data-testid="analysis-running">
        Explaining {symbol(analysis.target)}… ({analysis.status})
      </p>
    );
  if (inputs) return <CausalGraph inputs={inputs} title={symbol(analysis.target)} />;
  return analysis.results ? (
    <img
      class="graph-png"
      alt={`Causal graph of ${symbol(analysis.target)}`}
      src={`data:image/png;base64,${analysis.results.image_base64}`}
    />
  ) : null;
}

export function Prediction({ id }: { id: string }) {
  const [p, setP] = useState<PredictionStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [meta, setMeta] = useState<Record<string, unknown> | null>(null);
  const [degs, setDegs] = useState<DegPoint[] | null>(null);
  const [graph, setGraph] = useState<CausalGraphInputs | null>(null);
  const [graphPng, setGraphPng] = useState<string | null>(null);
  const [search, setSearch] = useState("");
  const [highlight, setHighlight] = useState<string | null>(null);
  const [analysis, setAnalysis] = useState<CausalAnalysisStatus | null>(null);
  const [analysisError, setAnalysisError] = useState<string | null>(null);
  const [starting, setStarting] = useState<string | null>(null);

  const load = () => api.prediction(id).then(setP, (e: unknown) => setError(explain(e)));
  useEffect(() => void load(), [id]);
  const live = useLiveStatus(p ? id : "", p ?? { status: "unknown" }, () => void load());
  const status = p ? (live.status === "unknown" ? p.status : live.status) : null;
  const completed = p?.status === "completed";

  useEffect(() => {
    if (!completed || !p) return;
    const idle = (fn: () => void) => setTimeout(fn, 50);
    // After the table's first page: the artifacts the other panels draw from.
    idle(() => {
      artifactJson(p.artifacts, "run_metadata.json").then(
        (j) => setMeta((j ?? null) as Record<string, unknown> | null),
        () => setMeta(null),
      );
      const degsLink = artifactNamed(p.artifacts, "degs.tsv");
      if (degsLink)
        api
          .artifact(degsLink.url)
          .then((r) => r.text())
          .then(
            (t) => setDegs(parseDegs(t)),
            () => setDegs([]),
          );
      else setDegs([]);
      if (p.job_type === "target_validation") {
        artifactJson(p.artifacts, "causal_graph_inputs.json").then(
          (j) => {
            if (j !== undefined) setGraph(parseInputs(j));
            else
              api.causalGraphPng(id, 20).then(
                (b) => setGraphPng(URL.createObjectURL(b)),
                () => setGraphPng(null),
              );
          },
          () => setGraph(null),
        );
      }
    });
  }, [completed]);

  // A started causal analysis is polled (it has no event stream) until it ends.
  useEffect(() => {
    if (!analysis || analysis.status === "completed" || analysis.status === "failed") return;
    const t = setTimeout(
      () =>
        void api
          .causalAnalysis(analysis.causal_analysis_id)
          .then(setAnalysis, (e: unknown) => setAnalysisError(explain(e))),
      3000,
    );
    return () => clearTimeout(t);
  }, [analysis]);

  if (error)
    return (
      <p class="error" role="alert">
        {error}
      </p>
    );
  if (!p) return <p class="muted">Loading…</p>;
  const active = status === "pending" || status === "processing";
  const explainRow = async (row: { cells: Record<string, unknown> }) => {
    const target = String(row.cells.id);
    setStarting(target);
    setAnalysisError(null);
    try {
      const created = await api.createCausalAnalysis(id, target);
      setAnalysis({
        causal_analysis_id: created.causal_analysis_id,
        status: created.status,
        prediction_id: id,
        target,
        created_at: new Date().toISOString(),
      });
      document.getElementById("graph")?.scrollIntoView({ behavior: "smooth" });
    } catch (e) {
      setAnalysisError(explain(e));
    } finally {
      setStarting(null);
    }
  };
  return (
    <section class="prediction">
      <div class="page-head">
        <div>
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
          {p.error_code ? <span class="muted">({p.error_code})</span> : null}
        </p>
      )}
      <Summary p={p} meta={meta} />
      {completed && (
        <>
          <h2 id="targets">
            Ranked targets{" "}
            <a class="help-link" href="/app/how-to-read#targets" aria-label="How to read the ranked targets">
              ?
            </a>
          </h2>
          <p class="muted">
            Every candidate protein ranked by how well it explains the DEGs (rank 0 is the best). Click a
            column to sort; hover a header for what it means.
          </p>
          <TargetTable
            predictionId={id}
            search={search}
            onSearch={setSearch}
            highlight={highlight}
            {...(p.job_type === "target_id"
              ? { action: { label: "Explain", run: (r) => void explainRow(r), busyId: starting } }
              : {})}
          />
          {analysisError && (
            <p class="error" role="alert">
              {analysisError}
            </p>
          )}
          <div class="plots">
            <div class="card" id="graph">
              <h2>
                Causal graph{" "}
                {p.job_type === "target_validation" && p.target
                  ? `of ${symbol(p.target)}`
                  : analysis
                    ? `of ${symbol(analysis.target)}`
                    : ""}
              </h2>
              {p.job_type === "target_validation" ? (
                graph ? (
                  <CausalGraph inputs={graph} title={symbol(p.target)} />
                ) : graphPng ? (
                  <img
                    class="graph-png"
                    data-testid="causal-graph"
                    src={graphPng}
                    alt={`Causal graph of ${symbol(p.target)}`}
                  />
                ) : (
                  <div class="graph placeholder" data-testid="causal-graph">
                    Loading the graph…
                  </div>
                )
              ) : analysis ? (
                <AnalysisResult analysis={analysis} />
              ) : (
                <p class="muted">
                  Choose “Explain” on a row of the table: a causal analysis of that candidate runs and its
                  graph appears here.
                </p>
              )}
            </div>
            <div class="card">
              <h2>Volcano plot</h2>
              <p class="muted small">
                Each dot is a gene of the DE table; hover for its name, click to find it among the candidates.
              </p>
              {degs === null ? (
                <div class="volcano placeholder" data-testid="volcano-plot">
                  Loading the DE table…
                </div>
              ) : degs.length === 0 ? (
                <div class="volcano placeholder" data-testid="volcano-plot">
                  No DE table for this prediction (a supplied DEG list has no fold changes, or this account
                  does not receive the files).
                </div>
              ) : (
                <Volcano
                  points={degs}
                  highlight={highlight}
                  onPick={(g) => {
                    setHighlight(g);
                    setSearch(g);
                    document.getElementById("targets")?.scrollIntoView({ behavior: "smooth" });
                  }}
                />
              )}
              {highlight && (
                <p class="small">
                  Showing {highlight}.{" "}
                  <button
                    type="button"
                    class="link-button"
                    onClick={() => {
                      setHighlight(null);
                      setSearch("");
                    }}
                  >
                    Clear
                  </button>
                </p>
              )}
            </div>
          </div>
          {p.job_type === "target_validation" && (
            <>
              <h2>How {symbol(p.target)} explains the DEGs</h2>
              <Explanation id={id} />
            </>
          )}
          <h2>Downloads</h2>
          {p.artifacts && p.artifacts.length > 0 ? (
            <ul class="downloads card" data-testid="downloads">
              {p.artifacts.map((a) => (
                <li key={a.name}>
                  <a href={sameOriginLink(a.url)} download={a.name}>
                    {a.name}
                  </a>
                </li>
              ))}
            </ul>
          ) : (
            <p class="muted">This account tier does not receive the result files of this job type.</p>
          )}
        </>
      )}
    </section>
  );
}
