/**
 * Everything the routes need, built once (main.ts, admin CLI, tests) and handed to the app:
 * configuration, database, limit counters, object store, dispatcher, runner pieces and the
 * clock. Tests build it with the embedded mode's real parts and an injected clock.
 */
import type { ObjectStore } from "@causeway/runner/storage";
import type { Config } from "./config.ts";
import type { Database } from "./db/database.ts";
import type { Dispatcher } from "./dispatch/dispatcher.ts";
import type { LimitStore } from "./limits/limit-store.ts";
import type { RunnerPieces } from "./runner-pieces.ts";
import type { DownloadTokens } from "./storage/download-tokens.ts";
import type { JobService } from "./services/jobs/jobs.ts";
import type { JobEvents } from "./events/job-events.ts";
import type { WebhookDeliverer } from "./webhooks/deliverer.ts";
import type { StatusDocuments } from "./services/status/status-documents.ts";
import type { ModelImports } from "./services/models/model-imports.ts";
import type { GraphRenders } from "./services/causal/graph-renders.ts";

export interface AppContext {
  config: Config;
  db: Database;
  limits: LimitStore;
  store: ObjectStore;
  tokens: DownloadTokens;
  dispatcher: Dispatcher;
  runner: RunnerPieces;
  /** Start-up model imports (background; jobs for a pending version wait for it). */
  modelImports?: ModelImports;
  jobs: JobService;
  /** Applied job changes, for push delivery (in process; across replicas through Redis). */
  events: JobEvents;
  /** Completion webhooks from the outbox (started by main.ts). */
  webhooks: WebhookDeliverer;
  /** Stored status bodies of completed predictions. */
  statusDocuments: StatusDocuments;
  /** On-demand causal graphs: gated, off the event loop, cached by request. */
  graphRenders: GraphRenders;
  callbackSecret: string;
  now: () => Date;
  newId: () => string;
}
