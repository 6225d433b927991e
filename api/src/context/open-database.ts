/**
 * The database of the context: a pg Pool on DATABASE_URL, or embedded PGlite started on the
 * data directory and reached over its socket.
 */
import type { Config } from "../config.ts";
import { Database } from "../db/database.ts";
import { startEmbeddedPostgres } from "../db/embedded.ts";
import { announceStarting } from "../db/embedded-starting.ts";

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
  const dataDir = options.ephemeral ? null : config.dataDir;
  const publish = options.publish ?? true;
  // Until the socket is published, an admin CLI on this directory waits instead of refusing.
  const starting = dataDir !== null && publish ? await announceStarting(dataDir) : null;
  const embedded = await startEmbeddedPostgres({
    dataDir,
    maxConnections: d.maxConnections,
    publish,
  }).finally(() => starting?.());
  return new Database(
    {
      host: embedded.host,
      port: embedded.port,
      user: "postgres",
      password: embedded.password,
      database: "postgres",
      max: d.maxConnections,
    },
    () => embedded.stop(),
  );
}
