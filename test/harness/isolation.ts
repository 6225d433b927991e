import { randomBytes } from "node:crypto";
import pg from "pg";

/** A database of its own for one test file, on the shared test server. */
export interface IsolatedDatabase {
  /** Connection URL of the new database. */
  readonly url: string;
  readonly name: string;
  /** Drops the database, cutting any connection still open (PostgreSQL >= 13). */
  drop(): Promise<void>;
}

function slug(label: string, max: number): string {
  const cleaned = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return (cleaned || "t").slice(0, max);
}

/**
 * Creates a fresh, empty database next to the one in `databaseUrl` (the `databaseUrl` that
 * global-setup provides) and returns its URL. Migrations are the test's business.
 */
export async function createIsolatedDatabase(databaseUrl: string, label = "test"): Promise<IsolatedDatabase> {
  const name = `t_${slug(label, 40)}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop(): Promise<void> {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * A unique prefix for Redis keys and S3 object keys of one test file, e.g. `t-ratelimit-1a2b3c4d/`.
 * Redis and S3 are shared by all test files of a run; prefixing keeps them apart.
 */
export function uniquePrefix(label = "test"): string {
  return `t-${slug(label, 40).replace(/_/g, "-")}-${randomBytes(4).toString("hex")}/`;
}
