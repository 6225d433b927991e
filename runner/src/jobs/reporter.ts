/**
 * How a running job tells the world where it is. A Kubernetes Job and the embedded local
 * executor report through signed HTTP callbacks to the API; the command line draws a
 * progress bar. Progress reports are best effort; the final report is retried hard,
 * because a lost final report leaves the job to the stuck-job sweeper.
 */
import {
  CALLBACK_RETRY,
  PROCESSING_STEPS,
  sendCallback,
  type CallbackRetryPolicy,
  type CompletedCallback,
  type FailedCallback,
  type JobKind,
  type ProcessingStep,
  type RunnerCallback,
} from "@causeway/contract";
import { currentTraceContext, tracer } from "@causeway/contract/telemetry";

export type FinalReport =
  | Omit<CompletedCallback, "job_id" | "kind" | "attempt" | "seq">
  | Omit<FailedCallback, "job_id" | "kind" | "attempt" | "seq">;

export interface Reporter {
  step(step: ProcessingStep): Promise<void>;
  finish(report: FinalReport): Promise<void>;
}

/** Reports nothing: tests and library callers. */
export const silentReporter: Reporter = {
  async step() {},
  async finish() {},
};

export interface CallbackTarget {
  url: string;
  keyHex: string;
  jobId: string;
  kind: JobKind;
  attempt: string;
}

/**
 * One span per stage, from the previous report to this one, named after the step it ends
 * with: the trace then shows where a job spent its time.
 */
function recordStageSpan(stage: string, startMs: number, endMs: number): void {
  const origin = performance.timeOrigin;
  tracer()
    .startSpan(`runner.${stage}`, { startTime: origin + startMs })
    .end(origin + endMs);
}

type Sleep = (ms: number) => Promise<void>;

/** Signed callbacks to the API's callback route (contract: crds/src/callback.ts). */
export class HttpCallbackReporter implements Reporter {
  private seq = 0;
  private lastAt = performance.now();
  private readonly target: CallbackTarget;
  private readonly sleep: Sleep | undefined;
  private readonly log: (message: string) => void;

  constructor(target: CallbackTarget, options: { sleep?: Sleep; log?: (message: string) => void } = {}) {
    this.target = target;
    this.sleep = options.sleep;
    this.log = options.log ?? ((m) => process.stderr.write(`${m}\n`));
  }

  /** Progress reports not yet delivered, in order. */
  private progress: Promise<unknown> = Promise.resolve();

  /**
   * Queues a progress report and returns at once: progress is best effort, so the job does not
   * wait for the API (a round trip per step, more when the API is busy); reports stay in order.
   */
  async step(step: ProcessingStep): Promise<void> {
    const payload = this.payload(
      { status: "processing", processing_step: step, progress_pct: PROCESSING_STEPS[step] },
      step,
    );
    const headers = currentTraceContext();
    this.progress = this.progress.then(() => this.deliver(payload, CALLBACK_RETRY.bestEffort, headers));
  }

  /** Waits until every queued progress report was delivered or given up. */
  async flush(): Promise<void> {
    await this.progress;
  }

  /** Sends the final report after the queued progress, so the API sees the steps in order. */
  async finish(report: FinalReport): Promise<void> {
    const payload = this.payload(report);
    await this.flush();
    const delivered = await this.deliver(payload, CALLBACK_RETRY.carriesResult, currentTraceContext());
    if (!delivered) throw new Error("the final status callback could not be delivered");
  }

  /** The callback body, stamped now: sequence number, stage timing, peak memory, stage span. */
  private payload(body: object, stage?: ProcessingStep): RunnerCallback {
    const now = performance.now();
    const stageSeconds = (now - this.lastAt) / 1000;
    recordStageSpan(stage ?? "finish", this.lastAt, now);
    this.lastAt = now;
    return {
      ...body,
      job_id: this.target.jobId,
      kind: this.target.kind,
      attempt: this.target.attempt,
      seq: this.seq++,
      stage_seconds: stageSeconds,
      peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
    } as RunnerCallback;
  }

  private async deliver(
    payload: RunnerCallback,
    policy: CallbackRetryPolicy,
    headers: Record<string, string>,
  ): Promise<boolean> {
    const delivery = await sendCallback(
      { url: this.target.url, keyHex: this.target.keyHex, body: payload, headers },
      policy,
      { sleep: this.sleep, onAttemptFailed: (reason) => this.log(`callback failed: ${reason}`) },
    );
    return delivery.delivered;
  }
}

/** A progress bar on a terminal (stderr), plain lines otherwise. */
export class ConsoleReporter implements Reporter {
  private readonly stream: NodeJS.WriteStream;

  constructor(stream: NodeJS.WriteStream = process.stderr) {
    this.stream = stream;
  }

  async step(step: ProcessingStep): Promise<void> {
    const pct = PROCESSING_STEPS[step];
    if (this.stream.isTTY) {
      const width = 30;
      const filled = Math.round((pct / 100) * width);
      this.stream.write(
        `\r[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${String(pct).padStart(3)}% ${step.padEnd(26)}`,
      );
      if (pct === 100) this.stream.write("\n");
    } else {
      this.stream.write(`${pct}% ${step}\n`);
    }
  }

  async finish(report: FinalReport): Promise<void> {
    if (this.stream.isTTY) this.stream.write("\n");
    if (report.status === "failed")
      this.stream.write(`failed: ${report.error_code}: ${report.error_message}\n`);
  }
}
