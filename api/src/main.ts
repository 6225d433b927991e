/**
 * The server: `npm start`. Reads the configuration, builds the context (embedded or
 * production parts) behind a port that answers /health at once, imports the configured model versions in the background (their
 * progress on GET /readyz/models), and serves until SIGTERM /
 * SIGINT, when close-with-grace stops accepting requests (/readyz turns 503), lets in-flight
 * requests finish, stops local runners and closes the database.
 */
import closeWithGrace from "close-with-grace";
import pino from "pino";
import { buildApp, REDACT_PATHS } from "./app.ts";
import { ConfigError, loadConfig, type Config } from "./config.ts";
import { closeContext, createContext } from "./create-context.ts";
import type { ResumableJob } from "./services/jobs/jobs.ts";
import { reconcileAfterCrash } from "./services/jobs/crash-reconciliation.ts";
import { apiLoggerOptions } from "./observability/logging.ts";
import { startMetricsServer } from "./observability/metrics-server.ts";
import { initTracing } from "@causeway/contract/telemetry";
import { listenEarly } from "./startup/early-listen.ts";
import { listenFailureMessage } from "./startup/listen-failure.ts";

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  process.stderr.write(`${err instanceof ConfigError ? err.message : String(err)}\n`);
  process.exit(1);
}

// Before anything that could start a span; a no-op unless OTEL_* ask for traces.
const tracing = await initTracing("causeway-api");
const logger = pino(apiLoggerOptions(config.logLevel, REDACT_PATHS));
/** Exits with one line when a port cannot be had (taken, privileged); other errors propagate. */
function exitOnListenFailure(
  err: unknown,
  what: string,
  where: { host: string; port: number },
  setting: string,
): never {
  const message = listenFailureMessage(err, what, where, setting);
  if (message === null) throw err;
  logger.fatal(message);
  process.exit(1);
}

// Listen first (/health answers while the database starts); the app takes the port over below.
const early = await listenEarly(config.port, config.host).catch((err: unknown) =>
  exitOnListenFailure(err, "API port", config, "PORT"),
);
const ctx = await createContext(config, logger);
let resumable: ResumableJob[];
try {
  if (config.database.kind === "embedded") await reconcileAfterCrash(ctx, logger);
  resumable = await ctx.jobs.recover(config.dispatch.kind === "local");
} catch (err) {
  logger.fatal({ err }, "start-up failed");
  await closeContext(ctx);
  process.exit(1);
}
ctx.jobs.startSweeper();
ctx.webhooks.start();
const app = await buildApp(ctx, { loggerInstance: logger });
const metricsApp = await startMetricsServer(ctx, config).catch(async (err: unknown) => {
  await app.close();
  await early.close();
  await closeContext(ctx);
  return exitOnListenFailure(err, "metrics port", config.metrics, "CAUSEWAY_METRICS_PORT");
});

closeWithGrace({ delay: 25_000 }, async ({ err, signal }) => {
  if (err) logger.error({ err }, "closing after an error");
  else logger.info({ signal }, "shutting down");
  app.appState.closing = true;
  await app.close();
  await metricsApp.close();
  await early.close();
  await closeContext(ctx);
  await tracing.shutdown();
});

await app.ready();
early.serve(app.routing, {
  requestTimeoutMs: config.requestTimeoutSeconds * 1000,
  keepAliveTimeoutMs: 65_000,
});
const bound = early.server.address();
const port = bound !== null && typeof bound === "object" ? bound.port : config.port;
// 0.0.0.0 and :: are every interface, not an address a client can use: say so.
const where =
  config.host === "0.0.0.0" || config.host === "::"
    ? `all interfaces (${config.host}) on port ${port}`
    : `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
logger.info(
  {
    database: config.database.kind,
    limits: config.redisUrl ? "redis" : "memory",
    storage: config.storage.kind,
    dispatch: config.dispatch.kind,
    publicUrl: config.publicUrl,
  },
  `causeway API listening on ${where}`,
);
// After listen: model versions import in the background (GET /readyz/models); jobs for one wait for it.
void ctx.modelImports?.start();
// After listen: the resumed runners report through the callback route.
await ctx.jobs.resume(resumable);
