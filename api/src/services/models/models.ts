/**
 * Model versions (model.md §12.1). A version is a network bundle plus a scoring (v1 to v4); the
 * service holds several, a submission's `model_version` picks one, and one is the default.
 * Embedded mode's "first start serves jobs": when CAUSEWAY_MODEL/CAUSEWAY_HGNC are set, the
 * versions of CAUSEWAY_MODEL_VERSIONS that are not registered yet are imported with the
 * runner's importModel.
 */
import type { ScoringVersion } from "@causeway/contract";
import type { ObjectStore } from "@causeway/runner/storage";
import type { ConfiguredModels } from "../../config.ts";
import type { Database } from "../../db/database.ts";
import { getDefaultModel, getModel, registerModel, setDefaultModel } from "../../db/models.ts";
import type { RunnerPieces } from "../../runner-pieces.ts";
import { manifestBytes, recordModelBuild } from "../../observability/metrics.ts";

export type ModelDeps = { db: Database; store: ObjectStore; runner: RunnerPieces };

export async function importAndRegisterModel(
  deps: ModelDeps,
  m: {
    networkPath: string;
    hgncDir: string;
    version: string;
    scoring: ScoringVersion;
    makeDefault: boolean;
    /** Gene-set libraries stored with a v3 or v4 version as evidence layers (never bundled: the operator supplies them). */
    librariesDir?: string | undefined;
    /** Protein–protein interaction pair files stored with a v4 version as evidence layers (likewise). */
    ppiFiles?: readonly string[] | undefined;
    /** The machine-wide bundle cache, if any (model-bundle-cache.ts). */
    cacheDir?: string;
    /** Versions already imported whose influence bundle may be reused (same network and walk). */
    reuseFrom?: readonly string[];
    /** No job waits for it (it may run at a low CPU priority). */
    background?: boolean;
  },
  log: (message: string) => void,
): Promise<"imported" | "exists"> {
  if (await getModel(deps.db, m.version)) {
    if (m.makeDefault) await setDefaultModel(deps.db, m.version);
    return "exists";
  }
  log(`importing model ${m.version} (scoring ${m.scoring}) from ${m.networkPath}`);
  const started = performance.now();
  const manifest = await deps.runner.importModel({
    networkPath: m.networkPath,
    hgncDir: m.hgncDir,
    version: m.version,
    scoring: m.scoring,
    store: deps.store,
    onProgress: log,
    ...(m.librariesDir ? { librariesDir: m.librariesDir } : {}),
    ...(m.ppiFiles && m.ppiFiles.length > 0 ? { ppiFiles: m.ppiFiles } : {}),
    cacheDir: m.cacheDir,
    ...(m.reuseFrom ? { reuseFrom: m.reuseFrom } : {}),
    ...(m.background ? { background: true } : {}),
  });
  recordModelBuild((performance.now() - started) / 1000, manifestBytes(manifest));
  await registerModel(deps.db, m.version, manifest ?? {}, m.makeDefault);
  return "imported";
}

/**
 * Start-up: import the configured versions that are missing. The default is CAUSEWAY_MODEL_VERSION
 * when it is set (configuration wins); otherwise an existing default (the admin's choice, see
 * `admin models set-default`) stands, and a fresh service takes the first configured version.
 */
export async function ensureConfiguredModels(
  deps: ModelDeps,
  models: ConfiguredModels,
  log: (message: string) => void,
): Promise<void> {
  const { networkPath, hgncDir, librariesDir, ppiFiles, cacheDir } = models;
  if (!networkPath || !hgncDir) {
    if (!(await getDefaultModel(deps.db)))
      log("no model registered: set CAUSEWAY_MODEL and CAUSEWAY_HGNC, or run `admin models import`");
    return;
  }
  for (const { version, scoring } of models.versions) {
    await importAndRegisterModel(
      deps,
      { networkPath, hgncDir, version, scoring, makeDefault: false, librariesDir, ppiFiles, cacheDir },
      log,
    );
  }
  const chosen =
    models.defaultVersion ?? (await getDefaultModel(deps.db))?.version ?? models.versions[0]?.version;
  if (chosen === undefined) return;
  if (!(await setDefaultModel(deps.db, chosen)))
    log(`CAUSEWAY_MODEL_VERSION=${chosen} is not a registered model version: the default is unchanged`);
}
