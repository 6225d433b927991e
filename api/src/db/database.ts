/**
 * One PostgreSQL access path for both modes: a `pg` Pool, connected either to a real server
 * (DATABASE_URL) or to the embedded PGlite through its socket server (embedded.ts). Keeping
 * `pg` in front of PGlite means the SQL, the migrations and the driver behaviour are the same
 * code in development, tests and production.
 */
import pg from "pg";

/** Anything that runs a query: the pool or a client inside a transaction. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>>;
}

/** Thrown when the database cannot be reached; answered as 503. */
export class DatabaseUnavailable extends Error {
  constructor(cause: unknown) {
    super("database unavailable", { cause });
    this.name = "DatabaseUnavailable";
  }
}

// Connection-level failures (server down, refused, timed out) as opposed to SQL errors.
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "57P01",
  "57P03",
  "08006",
  "08001",
  "08003",
  "53300",
]);

function isUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && UNAVAILABLE_CODES.has(code)) return true;
  return /timeout exceeded when trying to connect|Connection terminated|connect ECONNREFUSED/i.test(
    err.message,
  );
}

/** The pool with connection failures turned into DatabaseUnavailable. */
export class Database implements Queryable {
  readonly pool: pg.Pool;
  private readonly onClose: (() => Promise<void>) | undefined;

  constructor(config: pg.PoolConfig, onClose?: () => Promise<void>) {
    this.pool = new pg.Pool(config);
    // An idle client losing its server must not crash the process; the next query reports it.
    this.pool.on("error", () => {});
    this.onClose = onClose;
  }

  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(text, values);
    } catch (err) {
      throw isUnavailable(err) ? new DatabaseUnavailable(err) : err;
    }
  }

  /**
   * Runs `fn` in one transaction on one client. Never await another pooled query inside `fn`:
   * embedded PGlite serializes transactions across connections, so that would deadlock.
   */
  async tx<T>(fn: (client: Queryable) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw isUnavailable(err) ? new DatabaseUnavailable(err) : err;
    }
    try {
      await client.query("BEGIN");
      const result = await fn(client);
      await client.query("COMMIT");
      return result;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {});
      throw isUnavailable(err) ? new DatabaseUnavailable(err) : err;
    } finally {
      client.release();
    }
  }

  async ping(): Promise<void> {
    await this.query("SELECT 1");
  }

  async close(): Promise<void> {
    await this.pool.end();
    if (this.onClose) await this.onClose();
  }
}
