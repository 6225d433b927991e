/**
 * The API as one Fastify instance built from an AppContext (context.ts). main.ts builds the
 * context from the environment and listens; tests build it from injected parts and use
 * `app.inject`. Layout after fastify/demo: plugins (errors, edge limit, auth, OpenAPI), then
 * routes (v1, health, downloads, internal callbacks).
 */
import multipart from "@fastify/multipart";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from "fastify";
import { serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import type { AppContext } from "./context.ts";
import { requireApiKey } from "./plugins/auth.ts";
import { registerEdgeLimit } from "./plugins/edge-limit.ts";
import { registerIdleGc } from "./plugins/idle-gc.ts";
import { registerErrorHandler } from "./plugins/errors.ts";
import { frameworkErrorHandler } from "./plugins/framework-errors.ts";
import { registerOpenApi } from "./plugins/openapi.ts";
import { registerSecurityHeaders } from "./plugins/security-headers.ts";
import { registerWebApp } from "./plugins/web-app.ts";
import { registerTextGuard } from "./plugins/text-guard.ts";
import { registerNumberSpelling } from "./plugins/number-spelling.ts";
import { clientErrorHandler } from "./plugins/client-errors.ts";
import { registerUnreadBodyClose } from "./plugins/unread-body.ts";
import { AccessLogController, apiLoggerOptions } from "./observability/logging.ts";
import { registerObservability } from "./observability/plugin.ts";
import { fileRoutes } from "./routes/files.ts";
import { healthRoutes } from "./routes/health.ts";
import { callbackRoutes } from "./routes/internal/callbacks.ts";
import { causalAnalysisRoutes } from "./routes/v1/causal-analysis.ts";
import { derivedRoutes } from "./routes/v1/derived.ts";
import { geneRoutes } from "./routes/v1/genes.ts";
import { predictionEventRoutes } from "./routes/v1/prediction-events.ts";
import { predictionRoutes } from "./routes/v1/predictions.ts";
import { quotaRoutes } from "./routes/v1/quota.ts";
import { targetRoutes } from "./routes/v1/targets.ts";

/**
 * Log paths that must never be written: keys, signatures, secrets. Request headers are never
 * logged (the request serializer writes method, URL and addresses only), except by
 * @fastify/multipart, which logs busboy's options, headers included, at trace level.
 */
export const REDACT_PATHS = [
  'busboyOptions.headers["x-api-key"]',
  'busboyOptions.headers["x-causeway-signature"]',
  "busboyOptions.headers.authorization",
  "apiKey",
  "api_key",
  "*.apiKey",
  "*.api_key",
  "callbackSecret",
  "*.callbackSecret",
  "secret",
  "*.secret",
];

export interface BuildOptions {
  logger?: FastifyServerOptions["logger"];
  loggerInstance?: FastifyBaseLogger;
}

export interface AppState {
  closing: boolean;
}

declare module "fastify" {
  interface FastifyInstance {
    appState: AppState;
  }
}

/** Origins other than this one that serve artifact links (S3), which the web app may fetch. */
function artifactOrigins(config: AppContext["config"]): string[] {
  const s = config.storage;
  if (s.kind !== "s3") return [];
  return [s.publicEndpoint, s.endpoint].flatMap((u) => (u ? [new URL(u).origin] : []));
}

export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<FastifyInstance> {
  const { config } = ctx;
  const proxies = config.limits.trustedProxies;
  const app = Fastify({
    ...(options.loggerInstance
      ? { loggerInstance: options.loggerInstance }
      : {
          logger: options.logger ?? apiLoggerOptions(config.logLevel, REDACT_PATHS),
        }),
    trustProxy: proxies.length > 0 ? proxies : false,
    bodyLimit: 1024 * 1024,
    requestTimeout: config.requestTimeoutSeconds * 1000,
    connectionTimeout: config.requestTimeoutSeconds * 1000,
    keepAliveTimeout: 65_000,
    return503OnClosing: true,
    // Valid JSON with a "__proto__" or "constructor" key loses that key instead of failing to parse.
    onProtoPoisoning: "remove",
    onConstructorPoisoning: "remove",
    // One access-log line per request instead of Fastify's two.
    logController: new AccessLogController(),
    // Download tokens are path parameters of ~300 characters.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1024 },
    frameworkErrors: frameworkErrorHandler(ctx),
    clientErrorHandler,
  });
  const state: AppState = { closing: false };
  app.decorate("appState", state);
  app.decorateRequest("account", null);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // First: the request span and the HTTP metrics hooks must see every route.
  registerObservability(app, ctx);
  registerErrorHandler(app);
  registerUnreadBodyClose(app);
  registerEdgeLimit(app, ctx);
  registerIdleGc(app);
  registerSecurityHeaders(app, artifactOrigins(config));
  registerTextGuard(app);
  registerNumberSpelling(app);
  await app.register(multipart, { throwFileSizeLimit: true });
  await registerOpenApi(app);
  await registerWebApp(app);

  healthRoutes(app, ctx, state);
  fileRoutes(app, ctx);
  await callbackRoutes(app, ctx);
  await app.register(async (v1) => {
    requireApiKey(v1, ctx);
    predictionRoutes(v1, ctx);
    predictionEventRoutes(v1, ctx);
    derivedRoutes(v1, ctx);
    causalAnalysisRoutes(v1, ctx);
    quotaRoutes(v1, ctx);
    targetRoutes(v1, ctx);
    geneRoutes(v1, ctx);
  });
  app.addHook("preClose", async () => {
    state.closing = true;
  });
  return app;
}
