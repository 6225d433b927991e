/**
 * SQL migrations (api/migrations/*.sql, `-- Up Migration` / `-- Down Migration`) run with
 * node-pg-migrate. It holds an advisory lock, so a second concurrent runner fails fast; in
 * production migrations run once from the admin CLI (`migrate`, e.g. a Helm hook), in
 * embedded mode at every start.
 */
import { runner } from "node-pg-migrate";
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
