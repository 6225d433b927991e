/**
 * Builds the AppContext from the configuration: the embedded parts (PGlite over its socket,
 * in-memory limits, filesystem objects, local executor) or the production ones (PostgreSQL,
 * Redis, S3), chosen by what is configured. Tests pass overrides for any part.
 */
import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import { callbackUrl, type JobKind } from "@causeway/contract";
import type { ObjectStore } from "@causeway/runner/storage";
import type { Config } from "./config.ts";
import type { AppContext } from "./context.ts";
import type { Database } from "./db/database.ts";
import { touchJob } from "./db/jobs.ts";
import { migrate } from "./db/migrate.ts";
import { createDispatcher } from "./dispatch/create-dispatcher.ts";
import type { Dispatcher } from "./dispatch/dispatcher.ts";
import type { LimitStore } from "./limits/limit-store.ts";
import { runnerPieces, type RunnerPieces } from "./runner-pieces.ts";
import { JobService } from "./services/jobs/jobs.ts";
import { JobEvents } from "./events/job-events.ts";
import { WebhookDeliverer } from "./webhooks/deliverer.ts";
import { WebhookSecretBox } from "./webhooks/secrets.ts";
import { StatusDocuments } from "./services/status/status-documents.ts";
import { GraphRenders } from "./services/causal/graph-renders.ts";
import { DownloadTokens } from "./storage/download-tokens.ts";
import { resolveCallbackSecret } from "./context/callback-secret.ts";
import { openDatabase } from "./context/open-database.ts";
import { openLimitStore } from "./context/open-limit-store.ts";
import { openObjectStore, runnerStorageEnv } from "./context/open-object-store.ts";
import { ModelImports } from "./services/models/model-imports.ts";
import { removeEmptyWorkDirs } from "./services/submission/work-dirs.ts";
import { importModelInChild } from "./services/models/model-import-child.ts";
import { gateOnModelImports } from "./dispatch/model-gate.ts";

export interface ContextOverrides {
  db?: Database;
  limits?: LimitStore;
  store?: ObjectStore;
  dispatcher?: Dispatcher;
  runner?: RunnerPieces;
  now?: () => Date;
  newId?: () => string;
  /** In-memory embedded database (tests): nothing is written under the data directory. */
  ephemeralDatabase?: boolean;
  /** Called once per job reaching a terminal state (e.g. job metrics). */
  onJobFinished?: (kind: JobKind, jobId: string) => void;
  /** The job event bus (tests: a short heartbeat). */
  events?: JobEvents;
}

export async function createContext(
  config: Config,
  log: FastifyBaseLogger,
  o: ContextOverrides = {},
): Promise<AppContext> {
  const callbackSecret = await resolveCallbackSecret(config);
  const db = o.db ?? (await openDatabase(config, { ephemeral: o.ephemeralDatabase }));
  if (config.database.kind === "embedded" && !o.db) await migrate(db);
  const limits = o.limits ?? openLimitStore(config);
  const tokens = new DownloadTokens(callbackSecret);
  const store = o.store ?? (await openObjectStore(config, tokens));
  const now = o.now ?? (() => new Date());
  let dispatcher: Dispatcher | undefined = o.dispatcher;
  const events = o.events ?? new JobEvents({ redisUrl: config.redisUrl, log });
  const statusDocuments = new StatusDocuments({
    store,
    db,
    presignTtlSeconds: config.presignTtlSeconds,
    now,
    log,
    heavyReads: config.limits.heavyReads,
  });
  const jobs = new JobService({
    config,
    db,
    limits,
    store,
    now,
    log,
    dispatcher: () => dispatcher!,
    onFinished: o.onJobFinished,
    onChange: (kind, job) => events.publish(kind, job),
    onPredictionCompleted: (id) => statusDocuments.completed(id),
    onPredictionScored: (id, attempt) => statusDocuments.scoresWritten(id, attempt),
    cancel: (id) => dispatcher?.cancel?.(id),
  });
  dispatcher ??= await createDispatcher(config, {
    callbackSecret,
    callbackUrl: (kind, id) => callbackUrl(config.callbackBaseUrl, kind, id),
    storageEnv: runnerStorageEnv(config),
    onStart: (spec) => {
      touchJob(db, spec.kind, spec.job_id, now()).catch((err: unknown) =>
        log.warn({ err }, "heartbeat failed"),
      );
    },
    onExit: (spec, code, signal, stderrTail, failureCode) => {
      const message =
        failureCode === "out_of_memory"
          ? "The analysis ran out of memory."
          : code === 0
            ? "The analysis process ended without reporting a result."
            : "The analysis process ended unexpectedly. Please submit the job again.";
      // A no-op when the runner reported its end itself (the usual case).
      jobs
        .fail(spec.kind, spec.job_id, failureCode ?? "internal_error", message, {
          detail: `runner exit code ${code ?? "none"}${signal ? ` (signal ${signal})` : ""}\n${stderrTail}`,
        })
        .then((failed) => {
          if (failed) log.warn({ job_id: spec.job_id, code, signal }, "runner exited without a final report");
        })
        .catch((err: unknown) => log.error({ err }, "could not fail a crashed job"));
    },
  });
  // Start-up imports run in the background (main.ts starts them); jobs for a pending version wait.
  const runner = o.runner ?? runnerPieces;
  const importer = o.runner ? runner : { ...runner, importModel: importModelInChild(config.storage) };
  const modelImports = new ModelImports({ db, store, runner: importer }, config.model, (m) => log.info(m));
  if (!o.dispatcher) {
    dispatcher = gateOnModelImports(dispatcher, {
      imports: modelImports,
      db,
      jobs,
      events,
      log,
    });
  }
  const webhooks = new WebhookDeliverer({
    db,
    box: new WebhookSecretBox(callbackSecret),
    config: config.webhooks,
    now,
    log,
  });
  return {
    config,
    db,
    limits,
    store,
    tokens,
    dispatcher,
    runner,
    modelImports,
    jobs,
    events,
    webhooks,
    statusDocuments,
    graphRenders: new GraphRenders(runner, config.limits.heavyReads),
    callbackSecret,
    now,
    newId: o.newId ?? randomUUID,
  };
}

/** Closes what the context opened, dispatcher first (local children report while closing). */
export async function closeContext(ctx: AppContext): Promise<void> {
  ctx.jobs.stopSweeper();
  await ctx.webhooks.stop();
  await ctx.dispatcher.close();
  await ctx.runner.close();
  await ctx.statusDocuments.close();
  ctx.graphRenders.close();
  await ctx.limits.close();
  await ctx.events.close();
  await ctx.db.close();
  await removeEmptyWorkDirs(ctx.config.dataDir);
}
