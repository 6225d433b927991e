/**
 * The operator process: configuration → client → leader election → controller, with health
 * and metrics served from the start and a graceful shutdown on SIGTERM/SIGINT (the lease is
 * released so a successor need not wait for it to expire).
 */
import { type KubeConfig, VersionApi } from "@kubernetes/client-node";
import { PooledKubeConfig } from "@causeway/contract/kube";
import { pino, type Logger } from "pino";
import { jobFeatures, loadConfig, type OperatorConfig } from "./config.ts";
import { systemClock } from "./runtime/clock.ts";
import { httpFailureReporter } from "./runtime/api-callback.ts";
import { Controller } from "./runtime/controller.ts";
import { EventRecorder } from "./runtime/events.ts";
import { startHealthServer } from "./runtime/health.ts";
import { ClientNodeGateway, KubeLeaseStore } from "./runtime/kube.ts";
import { LeaderElector } from "./runtime/lease.ts";
import { OperatorMetrics } from "./runtime/metrics.ts";
import { activeTraceFields, initTracing } from "@causeway/contract/telemetry";

/** The server's minor version (decides optional Job fields); retried, since the apiserver may still be starting. */
async function serverMinor(kc: KubeConfig, log: Logger): Promise<number> {
  const api = kc.makeApiClient(VersionApi);
  for (let attempt = 1; ; attempt++) {
    try {
      const info = await api.getCode();
      return Number.parseInt(info.minor.replace(/\D+$/, ""), 10) || 0;
    } catch (err) {
      if (attempt >= 10) throw err;
      log.warn({ err, attempt }, "cannot read the server version yet");
      await new Promise((resolve) => setTimeout(resolve, Math.min(10_000, 500 * 2 ** attempt)));
    }
  }
}

/** Whether this replica runs the controller, and whether it is on its way out. */
interface ProcessState {
  running: boolean;
  stopping: boolean;
}

/** The controller, wired from the configuration and the server's Job features. */
function buildController(
  cfg: OperatorConfig,
  kc: KubeConfig,
  log: Logger,
  metrics: OperatorMetrics,
  features: ReturnType<typeof jobFeatures>,
): Controller {
  const gateway = new ClientNodeGateway(kc);
  const clock = systemClock;
  return new Controller({
    kc,
    namespace: cfg.namespace,
    gateway,
    config: { ...cfg.reconcile, ...features },
    clock,
    log,
    metrics,
    recorder: new EventRecorder({ gateway, clock, log, instance: cfg.env.POD_NAME }),
    concurrency: cfg.env.CONCURRENCY,
    coalesceMs: cfg.env.EVENT_COALESCE_MS,
    relistIntervalMs: cfg.env.RELIST_SECONDS * 1000,
    staleAfterMs: cfg.env.WATCH_STALE_SECONDS * 1000,
    reportFailure: httpFailureReporter({
      baseUrl: cfg.reconcile.callbackBaseUrl,
      serverSecret: cfg.reconcile.callbackServerSecret,
      onGiveUp: (report, reason) =>
        log.warn(
          { kind: report.kind, job_id: report.jobId, error_code: report.errorCode, reason },
          "could not tell the API about a failure; its stuck-job sweeper will fail the job",
        ),
    }),
  });
}

/** /healthz fails on a silent watch or a stuck queue; /readyz waits for synced caches. */
function serveHealth(
  cfg: OperatorConfig,
  controller: Controller,
  state: ProcessState,
  metrics: OperatorMetrics,
): ReturnType<typeof startHealthServer> {
  return startHealthServer(
    cfg.env.HTTP_PORT,
    {
      unhealthy: () => {
        if (!state.running) return null;
        if (controller.staleInformers() > 0) return "watch stale";
        const oldest = controller.queue.oldestWaitingSince();
        if (oldest !== null && systemClock.now() - oldest > cfg.env.QUEUE_STUCK_SECONDS * 1000)
          return "queue stuck";
        return null;
      },
      notReady: () =>
        state.stopping ? "shutting down" : state.running && !controller.synced ? "caches not synced" : null,
    },
    metrics.registry,
  );
}

/** The Lease elector, or null when leader election is off (the chart then uses Recreate). */
function leaderElector(
  cfg: OperatorConfig,
  kc: KubeConfig,
  log: Logger,
  onStartedLeading: () => void,
  onStoppedLeading: () => void,
): LeaderElector | null {
  if (!cfg.env.LEADER_ELECT) return null;
  return new LeaderElector({
    identity: cfg.env.POD_NAME,
    store: new KubeLeaseStore(kc, cfg.env.POD_NAMESPACE, cfg.env.LEASE_NAME),
    clock: systemClock,
    leaseDurationMs: cfg.env.LEASE_DURATION_SECONDS * 1000,
    renewDeadlineMs: cfg.env.RENEW_DEADLINE_SECONDS * 1000,
    retryPeriodMs: cfg.env.RETRY_PERIOD_SECONDS * 1000,
    onStartedLeading,
    onStoppedLeading,
    onError: (err) => log.warn({ err }, "leader election error"),
  });
}

async function main(): Promise<void> {
  const cfg = loadConfig();
  // Off unless OTEL_* variables ask for an exporter.
  const tracing = await initTracing("causeway-operator");
  const log = pino({
    level: cfg.env.LOG_LEVEL,
    base: { component: "operator", pod: cfg.env.POD_NAME },
    // Lines written during a reconcile carry its trace id.
    mixin: () => activeTraceFields(),
  });
  const kc = new PooledKubeConfig();
  kc.loadFromDefault();
  const metrics = new OperatorMetrics();
  const minor = await serverMinor(kc, log);
  const features = jobFeatures(cfg.env.POD_FAILURE_POLICY, minor);
  log.info({ serverMinor: minor, ...features, namespace: cfg.namespace }, "starting");

  const controller = buildController(cfg, kc, log, metrics, features);
  const state: ProcessState = { running: false, stopping: false };
  const health = await serveHealth(cfg, controller, state, metrics);

  const startController = () => {
    if (state.running || state.stopping) return;
    state.running = true;
    metrics.leader.set(1);
    log.info("leading: starting controller");
    controller.start().catch((err: unknown) => log.error({ err }, "controller failed to start"));
  };
  // Like controller-runtime: a replica that lost its lease exits rather than keep acting.
  const lostLease = () => {
    metrics.leader.set(0);
    if (!state.stopping) {
      log.error("lost the leader lease; exiting");
      void shutdown(1);
    }
  };
  const elector = leaderElector(cfg, kc, log, startController, lostLease);

  async function shutdown(code: number): Promise<void> {
    if (state.stopping) return;
    state.stopping = true;
    log.info("shutting down");
    const deadline = setTimeout(() => process.exit(code || 1), 20_000).unref();
    try {
      await controller.stop();
      await elector?.release();
      await tracing.shutdown();
    } catch (err) {
      log.error({ err }, "error during shutdown");
    }
    health.close();
    clearTimeout(deadline);
    process.exit(code);
  }

  process.once("SIGTERM", () => void shutdown(0));
  process.once("SIGINT", () => void shutdown(0));
  if (elector) elector.start();
  else startController();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
