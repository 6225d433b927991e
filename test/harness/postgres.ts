import { execFile } from "node:child_process";
import { appendFile, chown } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { findOnPath, MissingBinaryError, versionedDirs } from "./binaries.ts";
import { freePort } from "./ports.ts";
import { makeTempDir, startProcess, waitFor } from "./proc.ts";

const run = promisify(execFile);
const INSTALL_HINT = "sudo apt-get install -y postgresql";

/** A throwaway PostgreSQL server. */
export interface PostgresServer {
  /** URL of the database created at start, e.g. postgres://postgres:postgres@127.0.0.1:PORT/causeway_test. */
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * Locates initdb and postgres: $CAUSEWAY_PG_BIN, then PATH, then Debian's /usr/lib/postgresql/N/bin
 * (newest first). Both must come from the same directory so that their versions match.
 */
export function findPostgresBinDir(): string {
  const candidates: string[] = [];
  if (process.env.CAUSEWAY_PG_BIN) candidates.push(process.env.CAUSEWAY_PG_BIN);
  const onPath = findOnPath("initdb");
  if (onPath) candidates.push(dirname(onPath));
  candidates.push(...versionedDirs("/usr/lib/postgresql", "bin"));
  for (const dir of candidates) {
    if (
      findOnPath("initdb", [dir]) === join(dir, "initdb") &&
      findOnPath("postgres", [dir]) === join(dir, "postgres")
    ) {
      return dir;
    }
  }
  throw new MissingBinaryError("PostgreSQL (initdb, postgres)", INSTALL_HINT);
}

/** PostgreSQL refuses to run as root: find an unprivileged account to run it as. */
function unprivilegedUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const passwd = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .map((line) => line.split(":"));
  for (const name of ["postgres", "nobody"]) {
    const entry = passwd.find((fields) => fields[0] === name);
    if (entry) return { uid: Number(entry[2]), gid: Number(entry[3]) };
  }
  throw new Error("running as root and no 'postgres' or 'nobody' user exists to run PostgreSQL as");
}

/**
 * Initialises a cluster in a temp dir and starts PostgreSQL on a free loopback port, tuned for tests
 * (no fsync: the data is thrown away), then creates the database `database`.
 */
export async function startPostgres(
  database = "causeway_test",
  options: {
    /** Listen here instead of 127.0.0.1, with trust for its /24 (a real node's pods reach the host there). */
    address?: string;
  } = {},
): Promise<PostgresServer> {
  const address = options.address ?? "127.0.0.1";
  const binDir = findPostgresBinDir();
  const temp = await makeTempDir("pg");
  const user = unprivilegedUser();
  if (user) await chown(temp.path, user.uid, user.gid);
  const dataDir = join(temp.path, "data");
  const runAs = user ? { uid: user.uid, gid: user.gid } : {};
  // A clean environment: PG* variables of the developer's shell must not leak into initdb.
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C", LC_ALL: "C" };
  await run(
    join(binDir, "initdb"),
    ["-D", dataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"],
    {
      ...runAs,
      env,
      cwd: temp.path,
    },
  );
  if (options.address) {
    const subnet = `${address.split(".").slice(0, 3).join(".")}.0/24`;
    await appendFile(join(dataDir, "pg_hba.conf"), `host all all ${subnet} trust\n`);
  }
  const port = await freePort();
  const proc = startProcess({
    name: "postgres",
    command: join(binDir, "postgres"),
    args: [
      "-D",
      dataDir,
      "-p",
      String(port),
      "-c",
      `listen_addresses=${address}`,
      "-c",
      `unix_socket_directories=${temp.path}`,
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
      "-c",
      "full_page_writes=off",
      "-c",
      "max_connections=300",
    ],
    logPath: join(temp.path, "postgres.log"),
    cwd: temp.path,
    env,
    ...runAs,
  });
  const adminUrl = `postgres://postgres:postgres@${address}:${port}/postgres`;
  await waitFor(
    "PostgreSQL to accept connections",
    async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      try {
        await client.connect();
        await client.query("SELECT 1");
        return true;
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    { timeoutMs: 30_000, intervalMs: 100, proc },
  );
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${database}"`);
  } finally {
    await admin.end();
  }
  return {
    url: `postgres://postgres:postgres@${address}:${port}/${database}`,
    port,
    async stop(): Promise<void> {
      // SIGINT is PostgreSQL's "fast" shutdown: open sessions are cut, no checkpoint wait.
      await proc.stop("SIGINT", 15_000);
      await temp.remove();
    },
  };
}
