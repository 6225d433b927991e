/** Registered model versions (model.md §12.1); one of them is the default. */
import type { Queryable } from "./database.ts";

export interface ModelRow {
  version: string;
  manifest: unknown;
  is_default: boolean;
  created_at: Date;
}

export async function listModels(db: Queryable): Promise<ModelRow[]> {
  return (await db.query<ModelRow>(`SELECT * FROM models ORDER BY created_at, version`)).rows;
}

export async function getModel(db: Queryable, version: string): Promise<ModelRow | null> {
  return (await db.query<ModelRow>(`SELECT * FROM models WHERE version = $1`, [version])).rows[0] ?? null;
}

export async function getDefaultModel(db: Queryable): Promise<ModelRow | null> {
  return (await db.query<ModelRow>(`SELECT * FROM models WHERE is_default`)).rows[0] ?? null;
}

/** Registers a version (immutable: an existing version keeps its manifest); optionally makes it the default. */
export async function registerModel(
  db: Queryable,
  version: string,
  manifest: unknown,
  makeDefault: boolean,
): Promise<void> {
  await db.query(`INSERT INTO models (version, manifest) VALUES ($1, $2) ON CONFLICT (version) DO NOTHING`, [
    version,
    JSON.stringify(manifest),
  ]);
  if (makeDefault) await setDefaultModel(db, version);
}

/** Makes `version` the default; false when no such version is registered. */
export async function setDefaultModel(db: Queryable, version: string): Promise<boolean> {
  if (!(await getModel(db, version))) return false;
  // Clear first: the single-default unique index is checked row by row.
  await db.query(`UPDATE models SET is_default = false WHERE is_default AND version <> $1`, [version]);
  await db.query(`UPDATE models SET is_default = true WHERE version = $1`, [version]);
  return true;
}
