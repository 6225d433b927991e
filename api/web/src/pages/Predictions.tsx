/** The account's predictions (newest first, paged by cursor) with live progress, and the quota left. */
import { useEffect, useState } from "preact/hooks";
import { client, type PredictionStatus, type Quota } from "../client.ts";
import { explain } from "../explain.ts";
import { Progress, StatusBadge } from "../components/StatusBadge.tsx";
import { dateTime, symbol } from "../format.ts";
import { useLiveStatus } from "../live.ts";

function Row({ p, live }: { p: PredictionStatus; live: boolean }) {
  const s = useLiveStatus(live ? p.prediction_id : "", p);
  const active = s.status === "pending" || s.status === "processing";
  return (
    <tr data-testid="prediction-row">
      <td>
        <a href={`/app/predictions/${p.prediction_id}`}>{p.label || p.prediction_id.slice(0, 8)}</a>
        {p.target && <div class="muted small">target {symbol(p.target)}</div>}
      </td>
      <td class="opt">
        {p.job_type === "target_validation" ? "target validation" : "target identification"}
      </td>
      <td class="opt">{p.model_version ?? "—"}</td>
      <td>
        <StatusBadge status={s.status} />
      </td>
      <td class="progress-cell">
        {active ? (
          <Progress pct={s.progress_pct} step={s.processing_step} />
        ) : s.status === "failed" ? (
          <span class="muted small">{p.error_message}</span>
        ) : null}
      </td>
      <td class="nowrap opt">{dateTime(p.created_at)}</td>
    </tr>
  );
}

export function Predictions() {
  const [pages, setPages] = useState<PredictionStatus[][]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const [quota, setQuota] = useState<Quota | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);

  const load = async (after?: string) => {
    setLoading(true);
    try {
      const page = await client().listPredictions({ limit: 20, cursor: after });
      setPages((old) => (after ? [...old, page.predictions] : [page.predictions]));
      setCursor(page.next_cursor ?? null);
    } catch (err) {
      setError(explain(err));
    } finally {
      setLoading(false);
    }
  };
  useEffect(() => {
    void load();
    client()
      .getQuota()
      .then(setQuota, () => setQuota(null));
  }, []);
  const rows = pages.flat();
  // Live streams for the few newest running predictions (each stream is one open request).
  const live = new Set(
    rows
      .filter((p) => p.status === "pending" || p.status === "processing")
      .slice(0, 4)
      .map((p) => p.prediction_id),
  );
  return (
    <section>
      <div class="page-head">
        <h1>Predictions</h1>
        <div class="head-side">
          {quota && (
            <p class="quota" data-testid="quota">
              <strong>{quota.remaining_quota_requests}</strong> of {quota.total_quota_requests} predictions
              left
            </p>
          )}
          <a class="button primary" href="/app/new">
            New prediction
          </a>
        </div>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {rows.length === 0 && !loading && !error ? (
        <div class="card empty">
          <p>No predictions yet.</p>
          <p>
            <a href="/app/new">Submit your first dataset</a> — a control and a perturbed .h5ad with their
            DEGs, or one merged file.
          </p>
        </div>
      ) : (
        <div class="card table-card">
          <table class="list" data-testid="predictions-table">
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col" class="opt">
                  Job type
                </th>
                <th scope="col" class="opt">
                  Model
                </th>
                <th scope="col">Status</th>
                <th scope="col">Progress</th>
                <th scope="col" class="opt">
                  Created
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((p) => (
                <Row key={p.prediction_id} p={p} live={live.has(p.prediction_id)} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {cursor && (
        <p>
          <button type="button" onClick={() => void load(cursor)} disabled={loading}>
            {loading ? "Loading…" : "Show older predictions"}
          </button>
        </p>
      )}
    </section>
  );
}
