/**
 * Database part of the context: a pg Pool on DATABASE_URL, or embedded PGlite started on the
 * data directory and reached over its socket; and the server secret of the callback keys
 * (configured, or generated once into the data directory in embedded mode).
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Config } from "../config.ts";
import { Database } from "../db/database.ts";
import { startEmbeddedPostgres } from "../db/embedded.ts";

/** The callback secret: configured, or generated once and kept in the data directory (embedded). */
export async function resolveCallbackSecret(config: Config): Promise<string> {
  if (config.callbackSecret) return config.callbackSecret;
  await mkdir(config.dataDir, { recursive: true });
  const path = join(config.dataDir, "callback-secret");
  try {
    const existing = (await readFile(path, "utf8")).trim();
    if (existing.length >= 32) return existing;
  } catch {
    // first start
  }
  const secret = randomBytes(32).toString("hex");
  await writeFile(path, secret + "\n", { mode: 0o600 });
  return secret;
}

/** Opens the database of the configuration (starting embedded PGlite when no DATABASE_URL). */
export async function openDatabase(
  config: Config,
  options: { ephemeral?: boolean; publish?: boolean } = {},
): Promise<Database> {
  const d = config.database;
  if (d.kind === "postgres") {
    return new Database({
      connectionString: d.url,
      max: d.poolMax,
      connectionTimeoutMillis: d.connectTimeoutMs,
      // Bounded statement time: a hung query must not hold a request forever.
      statement_timeout: 30_000,
    });
  }
  const embedded = await startEmbeddedPostgres({
    dataDir: options.ephemeral ? null : config.dataDir,
    maxConnections: d.maxConnections,
    publish: options.publish ?? true,
  });
  return new Database(
    {
      host: embedded.host,
      port: embedded.port,
      user: "postgres",
      database: "postgres",
      max: d.maxConnections,
    },
    () => embedded.stop(),
  );
}
