/**
 * Prometheus metrics of the operator: controller-runtime's workqueue_* names, `causeway_`
 * for the rest, and no per-object labels (kind, result, reason and outcome are bounded).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { QueueMetrics } from "./queue.ts";

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** All operator metrics on one registry. */
export class OperatorMetrics {
  readonly registry = new Registry();
  readonly depth = new Gauge({
    name: "workqueue_depth",
    help: "Current depth of the work queue",
    labelNames: ["name"],
    registers: [this.registry],
  });
  readonly adds = new Counter({
    name: "workqueue_adds_total",
    help: "Adds handled by the work queue",
    labelNames: ["name"],
    registers: [this.registry],
  });
  readonly queueDuration = new Histogram({
    name: "workqueue_queue_duration_seconds",
    help: "How long an item waits in the work queue before it is processed",
    labelNames: ["name"],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly workDuration = new Histogram({
    name: "workqueue_work_duration_seconds",
    help: "How long processing an item takes",
    labelNames: ["name"],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly retries = new Counter({
    name: "workqueue_retries_total",
    help: "Retries handled by the work queue",
    labelNames: ["name"],
    registers: [this.registry],
  });
  readonly reconciles = new Counter({
    name: "causeway_reconcile_total",
    help: "Reconcile passes by kind and result (success, error, requeue)",
    labelNames: ["kind", "result"],
    registers: [this.registry],
  });
  readonly reconcileTriggers = new Counter({
    name: "causeway_reconcile_triggers_total",
    help: "Watch events by source (resource, job, pod) and what became of them (queued, own_write, own_job, unchanged, terminal, deferred)",
    labelNames: ["source", "outcome"],
    registers: [this.registry],
  });
  readonly reconcileEffects = new Counter({
    name: "causeway_reconcile_effects_total",
    help: "Reconcile passes by kind and what they did (acted, status, none, skipped, gone)",
    labelNames: ["kind", "effect"],
    registers: [this.registry],
  });
  readonly reconcileErrors = new Counter({
    name: "causeway_reconcile_errors_total",
    help: "Reconcile passes that failed, by kind",
    labelNames: ["kind"],
    registers: [this.registry],
  });
  readonly reconcileDuration = new Histogram({
    name: "causeway_reconcile_duration_seconds",
    help: "Duration of a reconcile pass, by kind",
    labelNames: ["kind"],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly watchRestarts = new Counter({
    name: "causeway_watch_restarts_total",
    help: "Watch restarts by resource and cause (error, stale, relist)",
    labelNames: ["resource", "cause"],
    registers: [this.registry],
  });
  readonly leader = new Gauge({
    name: "causeway_leader",
    help: "1 while this replica holds the leader lease",
    registers: [this.registry],
  });
  readonly jobsCreated = new Counter({
    name: "causeway_jobs_created_total",
    help: "Runner Jobs created, by kind",
    labelNames: ["kind"],
    registers: [this.registry],
  });
  readonly jobsFinished = new Counter({
    name: "causeway_jobs_finished_total",
    help: "Resources that reached a terminal phase, by kind, outcome and reason",
    labelNames: ["kind", "outcome", "reason"],
    registers: [this.registry],
  });

  constructor(defaults = true) {
    if (defaults) collectDefaultMetrics({ register: this.registry, prefix: "causeway_operator_" });
  }

  /** Observers for one named queue. */
  queue(name: string): QueueMetrics {
    return {
      depth: (n) => this.depth.set({ name }, n),
      added: () => this.adds.inc({ name }),
      queued: (s) => this.queueDuration.observe({ name }, s),
      worked: (s) => this.workDuration.observe({ name }, s),
      retried: () => this.retries.inc({ name }),
    };
  }
}
