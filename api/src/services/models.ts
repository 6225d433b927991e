/**
 * Model versions at start (embedded mode's "first start serves jobs"): when
 * CAUSEWAY_MODEL/CAUSEWAY_HGNC are set and the configured version is not registered yet, it is
 * imported into object storage with the runner's importModel and registered as the default.
 */
import type { ObjectStore } from "@causeway/runner/storage";
import type { Database } from "../db/database.ts";
import { getDefaultModel, getModel, registerModel } from "../db/models.ts";
import type { RunnerPieces } from "../runner-pieces.ts";
import { manifestBytes, recordModelBuild } from "../observability/metrics.ts";

export async function importAndRegisterModel(
  deps: { db: Database; store: ObjectStore; runner: RunnerPieces },
  m: { networkPath: string; hgncDir: string; version: string; makeDefault: boolean },
  log: (message: string) => void,
): Promise<"imported" | "exists"> {
  if (await getModel(deps.db, m.version)) {
    if (m.makeDefault) await registerModel(deps.db, m.version, null, true);
    return "exists";
  }
  log(`importing model ${m.version} from ${m.networkPath}`);
  const started = performance.now();
  const manifest = await deps.runner.importModel({
    networkPath: m.networkPath,
    hgncDir: m.hgncDir,
    version: m.version,
    store: deps.store,
    onProgress: log,
  });
  recordModelBuild((performance.now() - started) / 1000, manifestBytes(manifest));
  await registerModel(deps.db, m.version, manifest ?? {}, m.makeDefault);
  return "imported";
}

/** Start-up: import the configured model when needed; make it the default when none is. */
export async function ensureConfiguredModel(
  deps: { db: Database; store: ObjectStore; runner: RunnerPieces },
  model: { networkPath: string | undefined; hgncDir: string | undefined; version: string },
  log: (message: string) => void,
): Promise<void> {
  if (!model.networkPath || !model.hgncDir) {
    if (!(await getDefaultModel(deps.db)))
      log("no model registered: set CAUSEWAY_MODEL and CAUSEWAY_HGNC, or run `admin models import`");
    return;
  }
  // The configured version is the default: CAUSEWAY_MODEL_VERSION names what new jobs use.
  await importAndRegisterModel(
    deps,
    { networkPath: model.networkPath, hgncDir: model.hgncDir, version: model.version, makeDefault: true },
    log,
  );
}
