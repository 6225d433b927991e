/**
 * Embedded PostgreSQL: PGlite behind @electric-sql/pglite-socket, so the rest of the API
 * talks to it with `pg` exactly as it talks to a real server. The socket address is written
 * into the data directory (`pglite.json`) so that the admin CLI can reach the database while
 * the server holds it: PGlite's files must never be opened by two processes at once.
 */
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { startPasswordFront } from "./embedded-auth.ts";
import { initEmbeddedDatabase } from "./embedded-initdb.ts";
import { EMBEDDED_PG_OPTIONS } from "./embedded-settings.ts";
import { pidAlive, serverRegistryDir } from "./server-registry.ts";
import { workRoot } from "../services/submission/work-dirs.ts";

export { serverRegistryDir } from "./server-registry.ts";

const AddressFile = z.object({
  host: z.string(),
  port: z.number().int(),
  pid: z.number().int(),
  /** The socket's password (embedded-auth.ts); this file is mode 0600. */
  password: z.string().optional(),
});
export type EmbeddedAddress = z.infer<typeof AddressFile>;

export const ADDRESS_FILE = "pglite.json";
/** The PGlite directory inside the data directory. */
export const EMBEDDED_PGDATA = "pgdata";

// The registry entry names the server only: its password stays in the data directory.
const RegistryEntry = AddressFile.omit({ password: true }).extend({ dataDir: z.string() });
export type RunningServer = z.infer<typeof RegistryEntry>;

/** The embedded servers of this user that are running now. */
export async function listRunningServers(): Promise<RunningServer[]> {
  const dir = serverRegistryDir();
  const names = await readdir(dir).catch(() => [] as string[]);
  const found: RunningServer[] = [];
  for (const name of names) {
    let entry: RunningServer;
    try {
      entry = RegistryEntry.parse(JSON.parse(await readFile(join(dir, name), "utf8")));
    } catch {
      continue;
    }
    if (pidAlive(entry.pid) && (await portOpen(entry.host, entry.port))) found.push(entry);
  }
  return found;
}

/** A running embedded database: where to connect and how to stop it. */
export interface EmbeddedPostgres {
  host: string;
  port: number;
  /** Required by the socket: generated at every start. */
  password: string;
  stop(): Promise<void>;
}

/**
 * Starts PGlite on `dataDir/pgdata` (or in memory when dataDir is null, for tests) and serves it
 * on a loopback port. With `publish`, the address is written for the admin CLI.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string | null;
  maxConnections: number;
  publish?: boolean;
}): Promise<EmbeddedPostgres> {
  let dbPath = "memory://";
  if (options.dataDir !== null) {
    await mkdir(options.dataDir, { recursive: true });
    const running = await findRunningServer(options.dataDir);
    if (running && running.pid !== process.pid) {
      throw new Error(`another causeway process (pid ${running.pid}) is using ${options.dataDir}`);
    }
    dbPath = join(options.dataDir, EMBEDDED_PGDATA);
    // A new directory is created by a child process (embedded-initdb.ts says why).
    if (!existsSync(join(dbPath, "PG_VERSION"))) await initEmbeddedDatabase(dbPath);
  }
  const db = await PGlite.create(dbPath, EMBEDDED_PG_OPTIONS);
  // PGlite on a Unix socket in a private directory; clients come in through the password front.
  const socketDir = await privateSocketDir(options.dataDir);
  const server = new PGLiteSocketServer({
    db,
    path: join(socketDir, "pglite.sock"),
    maxConnections: options.maxConnections,
  });
  await server.start();
  const password = randomBytes(24).toString("base64url");
  const front = await startPasswordFront({ upstreamPath: join(socketDir, "pglite.sock"), password });
  const { host, port } = front;
  const addressPath = options.dataDir !== null ? join(options.dataDir, ADDRESS_FILE) : null;
  let registryPath: string | null = null;
  if (addressPath && options.publish !== false) {
    const address: EmbeddedAddress = { host, port, pid: process.pid, password };
    await writeFile(addressPath, JSON.stringify(address) + "\n", { mode: 0o600 });
    const registry = serverRegistryDir();
    await mkdir(registry, { recursive: true, mode: 0o700 });
    registryPath = join(registry, `${process.pid}.json`);
    const entry: RunningServer = { host, port, pid: process.pid, dataDir: options.dataDir! };
    await writeFile(registryPath, JSON.stringify(entry) + "\n", { mode: 0o600 });
  }
  let stopped = false;
  return {
    host,
    port,
    password,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (addressPath) await rm(addressPath, { force: true });
      if (registryPath) await rm(registryPath, { force: true });
      await front.close();
      await server.stop();
      await db.close();
      await rm(socketDir, { recursive: true, force: true });
    },
  };
}

/**
 * The socket's folder: one per data directory, in its work folder, so a process that was killed
 * leaves one behind for the next start on that directory to reuse instead of a new one each
 * time (no other server runs on it: checked above). An in-memory database gets its own.
 */
async function privateSocketDir(dataDir: string | null): Promise<string> {
  if (dataDir === null) return mkdtemp(join(tmpdir(), "causeway-pg-"));
  const dir = join(workRoot(dataDir), "pg");
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** The address of a live embedded server for this data directory, or null. */
export async function findRunningServer(dataDir: string): Promise<EmbeddedAddress | null> {
  let address: EmbeddedAddress;
  try {
    address = AddressFile.parse(JSON.parse(await readFile(join(dataDir, ADDRESS_FILE), "utf8")));
  } catch {
    return null;
  }
  if (!pidAlive(address.pid)) return null;
  return (await portOpen(address.host, address.port)) ? address : null;
}

function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}
