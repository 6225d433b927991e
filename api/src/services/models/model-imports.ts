/**
 * Start-up model imports in the background: the server listens at once and the configured
 * versions (CAUSEWAY_MODEL_VERSIONS, whatever they are) are imported one after another, their
 * progress in the log and on `GET /readyz/models`. A submission for a version still being
 * imported is accepted: its dispatch waits here (dispatch/model-gate.ts) and its status says
 * so (`processing_step: "waiting_for_model"`). The default is set as soon as its version is in.
 */
import type { ScoringVersion } from "@causeway/contract";
import type { ConfiguredModels } from "../../config.ts";
import { getDefaultModel, setDefaultModel } from "../../db/models.ts";
import { importAndRegisterModel, type ModelDeps } from "./models.ts";

/** The processing step of a job waiting for its model version's import. */
export const WAITING_FOR_MODEL_STEP = "waiting_for_model";

/** Progress lines the readiness route may show (counts only). */
const PROGRESS = /^model import: \d+\/\d+ column blocks$/;

export type ImportState = "waiting" | "importing" | "ready" | "failed";

/** One version's import as `GET /readyz/models` shows it. */
export interface ImportReport {
  version: string;
  scoring: ScoringVersion;
  state: ImportState;
  /** The latest progress line (or the failure). */
  message: string | null;
}

interface Entry extends ImportReport {
  done: Promise<void>;
  settle: (err?: Error) => void;
}

export class ModelImports {
  private readonly entries = new Map<string, Entry>();
  private readonly deps: ModelDeps;
  private readonly models: ConfiguredModels;
  private readonly log: (message: string) => void;
  private started: Promise<void> | undefined;
  /** The version that becomes the default once imported (set by start()). */
  private chosenDefault: string | undefined;

  constructor(deps: ModelDeps, models: ConfiguredModels, log: (message: string) => void) {
    this.deps = deps;
    this.models = models;
    this.log = log;
    if (!models.networkPath || !models.hgncDir) return;
    for (const { version, scoring } of models.versions) {
      let settle: (err?: Error) => void = () => {};
      const done = new Promise<void>((resolve, reject) => {
        settle = (err) => (err ? reject(err) : resolve());
      });
      // A failed import is reported to each waiting job; unobserved, it must not crash the process.
      done.catch(() => undefined);
      this.entries.set(version, { version, scoring, state: "waiting", message: null, done, settle });
    }
    this.chosenDefault = models.defaultVersion ?? models.versions[0]?.version;
  }

  /** Imports the missing versions in the background; resolves when all are settled (never rejects). */
  start(): Promise<void> {
    this.started ??= this.run();
    return this.started;
  }

  private async run(): Promise<void> {
    const { networkPath, hgncDir, librariesDir, ppiFiles, cacheDir } = this.models;
    if (!networkPath || !hgncDir) {
      if (!(await getDefaultModel(this.deps.db)))
        this.log("no model registered: set CAUSEWAY_MODEL and CAUSEWAY_HGNC, or run `admin models import`");
      return;
    }
    // Configuration wins; otherwise an admin's earlier choice stands, and a fresh service takes the first.
    this.chosenDefault =
      this.models.defaultVersion ?? (await getDefaultModel(this.deps.db))?.version ?? this.chosenDefault;
    // The default first: a newcomer's first jobs wait for it alone.
    const order = [...this.entries.values()].sort(
      (a, b) => Number(b.version === this.chosenDefault) - Number(a.version === this.chosenDefault),
    );
    for (const entry of order) {
      entry.state = "importing";
      entry.message = "started";
      const started = performance.now();
      try {
        const result = await importAndRegisterModel(
          this.deps,
          {
            networkPath,
            hgncDir,
            version: entry.version,
            scoring: entry.scoring,
            makeDefault: false,
            librariesDir,
            ppiFiles,
            cacheDir,
            // Versions in already: one with the same walk lends its influence bundle (v2 and v3).
            reuseFrom: order.filter((e) => e.state === "ready").map((e) => e.version),
            background: entry.version !== this.chosenDefault,
          },
          (message) => {
            // The route is public: it shows progress counts, never the log's file paths.
            if (PROGRESS.test(message)) entry.message = message;
            this.log(message);
          },
        );
        if (entry.version === this.chosenDefault) await this.makeDefault(entry.version);
        entry.state = "ready";
        entry.message =
          result === "exists"
            ? "already imported"
            : `imported in ${((performance.now() - started) / 1000).toFixed(1)} s`;
        this.log(`model ${entry.version}: ${entry.message}`);
        entry.settle();
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        entry.state = "failed";
        entry.message = "import failed (the server log says why)";
        this.log(`model ${entry.version}: import failed: ${reason}`);
        entry.settle(err instanceof Error ? err : new Error(reason));
      }
    }
  }

  private async makeDefault(version: string): Promise<void> {
    if (!(await setDefaultModel(this.deps.db, version)))
      this.log(
        `CAUSEWAY_MODEL_VERSION=${version} is not a registered model version: the default is unchanged`,
      );
  }

  /** True while `version` is a configured version whose import has not ended. */
  pending(version: string): boolean {
    const state = this.entries.get(version)?.state;
    return state === "waiting" || state === "importing";
  }

  /** The version that will be the default once its import ends, while it is pending. */
  pendingDefault(): string | undefined {
    const version = this.chosenDefault;
    return version !== undefined && this.pending(version) ? version : undefined;
  }

  /** Resolves when `version` is imported (at once when it is not one of the start-up imports). */
  whenReady(version: string): Promise<void> {
    return this.entries.get(version)?.done ?? Promise.resolve();
  }

  /** Every start-up import, in order; `ready` when none is pending or failed. */
  report(): { ready: boolean; versions: ImportReport[] } {
    const versions = [...this.entries.values()].map(({ version, scoring, state, message }) => ({
      version,
      scoring,
      state,
      message,
    }));
    return { ready: versions.every((v) => v.state === "ready"), versions };
  }
}
