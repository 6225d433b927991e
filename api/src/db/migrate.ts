/**
 * SQL migrations (api/migrations/*.sql, `-- Up Migration` / `-- Down Migration`) run with
 * node-pg-migrate. It holds an advisory lock, so a second concurrent runner fails fast; in
 * production migrations run once from the admin CLI (`migrate`, e.g. a Helm hook), in
 * embedded mode at every start.
 */
import { runner } from "node-pg-migrate";
import { readdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Database } from "./database.ts";

export const MIGRATIONS_DIR = fileURLToPath(new URL("../../migrations", import.meta.url));

/** Applies pending migrations; returns the names applied. */
export async function migrate(db: Database, log: (line: string) => void = () => {}): Promise<string[]> {
  const client = await db.pool.connect();
  try {
    const applied = await runner({
      dbClient: client,
      dir: MIGRATIONS_DIR,
      direction: "up",
      migrationsTable: "pgmigrations",
      checkOrder: true,
      log,
    });
    return applied.map((m) => m.name);
  } finally {
    client.release();
  }
}

/**
 * How many migrations of this release the database still lacks (all of them before the first
 * run). A server applies them right after its database starts, so a client that connects to a
 * server still starting waits for this to reach 0.
 */
export async function pendingMigrations(db: Database): Promise<number> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /\.(sql|js|ts)$/.test(f));
  const { rows: table } = await db.query<{ t: string | null }>(
    `SELECT to_regclass('public.pgmigrations')::text AS t`,
  );
  if (!table[0]?.t) return files.length;
  const { rows } = await db.query<{ name: string }>(`SELECT name FROM pgmigrations`);
  const applied = new Set(rows.map((r) => r.name));
  return files.filter((f) => !applied.has(f.replace(/\.[^.]+$/, ""))).length;
}
