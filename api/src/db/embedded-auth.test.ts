import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADDRESS_FILE, findRunningServer, startEmbeddedPostgres, type EmbeddedPostgres } from "./embedded.ts";
import { EMBEDDED_PG_SETTINGS } from "./embedded-settings.ts";
import { workRoot } from "../services/submission/work-dirs.ts";

let dir: string;
let db: EmbeddedPostgres;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "causeway-embedded-auth-"));
  db = await startEmbeddedPostgres({ dataDir: dir, maxConnections: 4 });
}, 120_000);
afterAll(async () => {
  await db?.stop();
  await rm(dir, { recursive: true, force: true });
});

const query = async (password: string | undefined) => {
  const client = new pg.Client({
    host: db.host,
    port: db.port,
    user: "postgres",
    database: "postgres",
    password,
  });
  try {
    await client.connect();
    return (await client.query<{ one: number }>("SELECT 1 AS one")).rows[0]!.one;
  } finally {
    await client.end().catch(() => {});
  }
};

describe("the embedded database socket", () => {
  it("refuses a connection without the password or with a wrong one (28P01)", async () => {
    await expect(query("wrong")).rejects.toMatchObject({ code: "28P01" });
    await expect(query("")).rejects.toThrow();
    await expect(query(undefined)).rejects.toThrow();
  });

  it("admits the password from the data directory's pglite.json (mode 0600), and only that file holds it", async () => {
    const file = join(dir, ADDRESS_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const address = JSON.parse(await readFile(file, "utf8")) as { password: string };
    expect(address.password).toBe(db.password);
    expect(address.password.length).toBeGreaterThanOrEqual(32);
    expect((await findRunningServer(dir))?.password).toBe(db.password);
    expect(await query(address.password)).toBe(1);
  });

  it("carries many queries and concurrent clients once authenticated", async () => {
    const results = await Promise.all(Array.from({ length: 4 }, () => query(db.password)));
    expect(results).toEqual([1, 1, 1, 1]);
  });
});

describe("the embedded database's settings", () => {
  it("runs with small buffers (embedded-settings.ts), also on a directory created by the initdb child", async () => {
    const client = new pg.Client({
      host: db.host,
      port: db.port,
      user: "postgres",
      database: "postgres",
      password: db.password,
    });
    await client.connect();
    try {
      const { rows } = await client.query<{ shared_buffers: string }>("SHOW shared_buffers");
      expect(rows[0]!.shared_buffers).toBe(EMBEDDED_PG_SETTINGS.shared_buffers);
    } finally {
      await client.end();
    }
    expect((await stat(join(dir, "pgdata", "PG_VERSION"))).isFile()).toBe(true);
  });
});

describe("the socket's folder", () => {
  it("is the data directory's own (mode 0700): a killed server's leftover is replaced at the next start, and a stop removes it", async () => {
    const other = await mkdtemp(join(tmpdir(), "causeway-embedded-socket-"));
    const socketDir = join(workRoot(other), "pg");
    try {
      // What a killed server leaves: the folder with a stale socket file.
      await mkdir(socketDir, { recursive: true });
      await writeFile(join(socketDir, "stale"), "");
      const second = await startEmbeddedPostgres({ dataDir: other, maxConnections: 2, publish: false });
      try {
        expect((await stat(socketDir)).mode & 0o777).toBe(0o700);
        expect(await readdir(socketDir)).toEqual(["pglite.sock"]);
      } finally {
        await second.stop();
      }
      expect(existsSync(socketDir)).toBe(false);
    } finally {
      await rm(workRoot(other), { recursive: true, force: true });
      await rm(other, { recursive: true, force: true });
    }
  }, 120_000);
});
