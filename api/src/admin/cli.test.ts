/**
 * The admin CLI as a user runs it (a child process on Node 24), in embedded mode: alone on the
 * data directory, then next to a running server through the published PGlite socket.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../test/shared-data.ts";
import { waitFor } from "../../../test/harness/proc.ts";
import { findRunningServer } from "../db/embedded.ts";

const run = promisify(execFile);
let dataDir: string;
let runtimeDir: string;
let env: NodeJS.ProcessEnv;

async function admin(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, ["api/src/admin/cli.ts", ...args], { cwd: REPO_ROOT, env, timeout: 170_000 });
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "causeway-cli-"));
  // Its own runtime directory: servers of other tests must not be found by this one's CLI.
  runtimeDir = await mkdtemp(join(tmpdir(), "causeway-cli-run-"));
  env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    CAUSEWAY_DATA_DIR: dataDir,
    XDG_RUNTIME_DIR: runtimeDir,
    LOG_LEVEL: "silent",
  };
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
  await rm(runtimeDir, { recursive: true, force: true });
});

describe("admin CLI (embedded)", () => {
  let firstAccount = "";

  it(
    "refuses to create a database in a data directory that has none, naming the directory and --init",
    { timeout: 180_000 },
    async () => {
      const refused = await admin("accounts", "create", "--name", "alice", "--tier", "external").catch(
        (e: { stderr: string; stdout: string; code: number }) => e,
      );
      expect((refused as { code: number }).code).toBe(1);
      expect((refused as { stderr: string }).stderr).toContain(`no causeway database in ${dataDir}`);
      expect((refused as { stderr: string }).stderr).toContain("--init");
      expect((refused as { stdout: string }).stdout).toBe("");
      await expect(readdir(dataDir)).resolves.toEqual([]);
    },
  );

  // Opening the PGlite directory without a server (initdb on first use) takes several seconds.
  it(
    "creates an account with --init --json: the last stdout line is exactly the documented object",
    { timeout: 180_000 },
    async () => {
      const { stdout, stderr } = await admin(
        "accounts",
        "create",
        "--name",
        "alice",
        "--tier",
        "external",
        "--quota",
        "5",
        "--json",
        "--init",
      );
      expect(stderr).toContain(`admin: database embedded in ${dataDir}, opened directly`);
      const last = stdout.trimEnd().split("\n").at(-1)!;
      expect(last).toMatch(/^\{"account_id": "[0-9a-f-]{36}", "api_key": "cw_[A-Za-z0-9_-]{43}"\}$/);
      firstAccount = JSON.parse(last).account_id;
    },
  );

  it("fails clearly on bad arguments", { timeout: 180_000 }, async () => {
    const err = await admin("accounts", "create", "--name", "x", "--tier", "gold").catch(
      (e: { stderr: string; code: number }) => e,
    );
    expect((err as { code: number }).code).not.toBe(0);
    expect((err as { stderr: string }).stderr).toContain("external or internal");
  });

  describe("while the server runs", () => {
    let server: ChildProcess;
    const port = 20000 + Math.floor(Math.random() * 20000);
    beforeAll(async () => {
      server = spawn(process.execPath, ["api/src/main.ts"], {
        cwd: REPO_ROOT,
        // A free metrics port: another server on this machine may hold the default 9464.
        env: { CAUSEWAY_METRICS_PORT: "0", ...env, PORT: String(port), HOST: "127.0.0.1" },
        stdio: "ignore",
      });
      // /readyz, not /health: the server listens before its database (and the socket the CLI
      // finds it by) is up, so /health alone let a loaded machine run the CLI too early.
      await waitFor(
        "the server's database",
        async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok,
        {
          timeoutMs: 120_000,
        },
      );
    }, 180_000);
    afterAll(async () => {
      server.kill("SIGTERM");
      await new Promise((r) => server.once("exit", r));
    });

    it(
      "lists accounts, issues, lists and revokes keys, sets quotas, migrates",
      { timeout: 180_000 },
      async () => {
        const listed = await admin("accounts", "list");
        expect(listed.stdout).toContain("alice");
        expect(listed.stderr).toMatch(
          /^admin: database embedded in .*, through the running server \(pid \d+/,
        );
        const key = JSON.parse(
          (await admin("keys", "create", "--account", firstAccount, "--json")).stdout
            .trim()
            .split("\n")
            .at(-1)!,
        );
        const keys = JSON.parse(
          (await admin("keys", "list", "--account", firstAccount, "--json")).stdout,
        ) as {
          key_id: string;
          prefix: string;
        }[];
        expect(keys).toHaveLength(2);
        expect(JSON.stringify(keys)).not.toContain(key.api_key);
        await admin("keys", "revoke", "--key", key.key_id);
        const after = JSON.parse(
          (await admin("keys", "list", "--account", firstAccount, "--json")).stdout,
        ) as {
          revoked_at: string | null;
        }[];
        expect(after.filter((k) => k.revoked_at !== null)).toHaveLength(1);
        await admin("quota", "set", "--account", firstAccount, "--total", "9");
        const accounts = JSON.parse((await admin("accounts", "list", "--json")).stdout) as {
          quota_total: number;
        }[];
        expect(accounts[0]!.quota_total).toBe(9);
        expect((await admin("migrate")).stdout).toContain("up to date");
        expect((await admin("models", "list", "--json")).stdout.trim()).toBe("[]");
        // The server published its socket, so the CLI went through it instead of opening the directory.
        expect(await findRunningServer(dataDir)).not.toBeNull();
      },
    );

    it("pointed at an empty data directory, finds the running server's database and says so", async () => {
      const elsewhere = await mkdtemp(join(tmpdir(), "causeway-cli-other-"));
      try {
        const { stdout, stderr } = await run(
          process.execPath,
          ["api/src/admin/cli.ts", "accounts", "create", "--name", "carol", "--tier", "internal", "--json"],
          { cwd: REPO_ROOT, env: { ...env, CAUSEWAY_DATA_DIR: elsewhere }, timeout: 170_000 },
        );
        expect(stderr).toContain(
          `admin: no database in ${elsewhere} (CAUSEWAY_DATA_DIR); using the running server's in ${dataDir}`,
        );
        const { api_key } = JSON.parse(stdout.trim().split("\n").at(-1)!);
        const res = await fetch(`http://127.0.0.1:${port}/v1/usage/predictions/quota`, {
          headers: { "x-api-key": api_key },
        });
        expect(res.status).toBe(200);
        await expect(readdir(elsewhere)).resolves.toEqual([]);
      } finally {
        await rm(elsewhere, { recursive: true, force: true });
      }
    });

    it("creates an account through the server's socket, usable at once", async () => {
      const { stdout } = await admin("accounts", "create", "--name", "bob", "--tier", "internal", "--json");
      const { api_key } = JSON.parse(stdout.trim().split("\n").at(-1)!);
      const res = await fetch(`http://127.0.0.1:${port}/v1/usage/predictions/quota`, {
        headers: { "x-api-key": api_key },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        total_quota_requests: 100,
        consumed_quota_requests: 0,
        remaining_quota_requests: 100,
      });
    });
  });
});

describe("admin CLI run while `npm start` is starting the server", () => {
  it(
    "waits for the server starting on its data directory instead of refusing",
    { timeout: 240_000 },
    async () => {
      const fresh = await mkdtemp(join(tmpdir(), "causeway-cli-fresh-"));
      const port = 20000 + Math.floor(Math.random() * 20000);
      // prestart's first step, then the server, as `npm start` runs them (without the web build).
      const node = JSON.stringify(process.execPath);
      const server = spawn(
        "sh",
        ["-c", `${node} api/src/startup/announce-start.ts && exec ${node} api/src/main.ts`],
        {
          cwd: REPO_ROOT,
          env: {
            CAUSEWAY_METRICS_PORT: "0",
            ...env,
            CAUSEWAY_DATA_DIR: fresh,
            PORT: String(port),
            HOST: "127.0.0.1",
          },
          stdio: "ignore",
        },
      );
      try {
        // As soon as the start has begun: its database does not exist yet.
        await waitFor(
          "the start-up marker",
          async () =>
            (await readdir(join(runtimeDir, `causeway-embedded-${process.getuid!()}`))).some((f) =>
              f.startsWith("starting-"),
            ),
          { timeoutMs: 60_000 },
        );
        const { stdout, stderr } = await run(
          process.execPath,
          ["api/src/admin/cli.ts", "accounts", "create", "--name", "dave", "--tier", "internal", "--json"],
          { cwd: REPO_ROOT, env: { ...env, CAUSEWAY_DATA_DIR: fresh }, timeout: 200_000 },
        );
        expect(stderr).toMatch(/admin: a server is starting on .* \(pid \d+\); waiting for its database/);
        expect(stderr).toContain(`admin: database embedded in ${fresh}, through the running server`);
        const { api_key } = JSON.parse(stdout.trim().split("\n").at(-1)!);
        await waitFor("the server", async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok, {
          timeoutMs: 120_000,
        });
        const res = await fetch(`http://127.0.0.1:${port}/v1/usage/predictions/quota`, {
          headers: { "x-api-key": api_key },
        });
        expect(res.status).toBe(200);
      } finally {
        server.kill("SIGTERM");
        await new Promise((r) => server.once("exit", r));
        await rm(fresh, { recursive: true, force: true });
      }
    },
  );
});
