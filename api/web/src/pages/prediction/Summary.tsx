/**
 * The facts of a prediction (inputs, dataset, timings, parameters, warnings) as cards. On a
 * completed prediction they sit below the answer, folded, so that the ranked targets come first.
 */
import { Fragment } from "preact";
import { STATUS_FIELDS } from "@causeway/api/schemas/field-docs.ts";
import type { PredictionStatus } from "../../client.ts";
import { Pending } from "../../components/Pending.tsx";
import { dateTime, duration, num, symbol } from "../../format.ts";
import { DatasetFacts } from "./DatasetFacts.tsx";

export interface Warning {
  code: string;
  message: string;
}

export const warningsOf = (p: PredictionStatus): Warning[] => (p as { warnings?: Warning[] }).warnings ?? [];

/** Run parameters: undefined while run_metadata.json loads, null when there is none. */
export type RunParameters = Record<string, unknown> | null | undefined;

function Parameters({ params }: { params: RunParameters }) {
  return (
    <div class="card" data-testid="parameters-card">
      <h3>Parameters</h3>
      {params === undefined ? (
        <Pending what="the parameters" />
      ) : params === null ? (
        <p class="muted small">This job recorded no parameters (run_metadata.json is not among its files).</p>
      ) : (
        <dl class="params">
          {Object.entries(params).map(([k, v]) => (
            <Fragment key={k}>
              <dt>{k.replaceAll("_", " ")}</dt>
              <dd>{v === null ? "default" : typeof v === "number" ? num(v) : String(v)}</dd>
            </Fragment>
          ))}
        </dl>
      )}
    </div>
  );
}

export function Summary({ p, params }: { p: PredictionStatus; params: RunParameters }) {
  const ds = p.dataset_summary;
  const warnings = warningsOf(p);
  return (
    <div class="summary-grid" data-testid="summary">
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
      {p.status === "completed" && <Parameters params={params} />}
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
