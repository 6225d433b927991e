/** A job status as a coloured word, and a progress bar while it runs. */
export function StatusBadge({ status, testid }: { status: string; testid?: string }) {
  return (
    <span class={`badge badge-${status}`} data-testid={testid}>
      {status}
    </span>
  );
}

export function Progress({
  pct,
  step,
}: {
  pct: number | null | undefined;
  step?: string | null | undefined;
}) {
  const value = Math.max(0, Math.min(100, pct ?? 0));
  return (
    <div class="progress-wrap">
      <div
        class="progress"
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={value}
        aria-label="Progress"
      >
        <div class="progress-bar" style={{ width: `${value}%` }} />
      </div>
      <span class="progress-text">
        {value}%{step ? ` · ${step.replaceAll("_", " ")}` : ""}
      </span>
    </div>
  );
}
