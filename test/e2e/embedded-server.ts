/**
 * The embedded server as a user starts it (`node api/src/main.ts` on Node 24) in a temp data
 * directory with the shared interactome, for end-to-end tests of clients: accounts come from
 * the admin CLI, exactly as the README says.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { DEFAULT_NETWORK, HGNC_DIR, HURI_PAIRS, REPO_ROOT, sharedData } from "../shared-data.ts";

const exec = promisify(execFile);
export const NODE = join(REPO_ROOT, "node_modules", ".bin", "node");

export interface EmbeddedServer {
  base: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  log(): string;
  /** A new account through the admin CLI; returns its API key. */
  newAccount(tier: "internal" | "external", name?: string): Promise<string>;
  /**
   * Stops the server and starts it again on the same data directory (accounts, predictions and
   * results kept) with `extraEnv` added, on a new port: `base` changes.
   */
  restart(extraEnv?: NodeJS.ProcessEnv): Promise<void>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * How long a start may take. The first start imports the interactome before it is ready
 * (about 15 s on a quiet machine, many times that on a loaded one), so this is generous but
 * stays below the callers' 600 s hook timeout: a slow start then fails here, with the
 * server's own output, rather than as a bare hook timeout.
 */
export const START_TIMEOUT_MS = 540_000;

/**
 * One readiness probe: the server's stores answer (/readyz) and its configured model versions are
 * imported (/readyz/models), so a test's first job does not wait for an import. A request the
 * server accepts but does not answer counts as not ready.
 */
async function ready(base: string): Promise<boolean> {
  try {
    for (const path of ["/readyz", "/readyz/models"]) {
      if (!(await fetch(`${base}${path}`, { signal: AbortSignal.timeout(5_000) })).ok) return false;
    }
    return true;
  } catch {
    return false; // not listening yet, or too busy to answer
  }
}

/** A server process started by spawnServer, ready. */
export interface ServerProcess {
  process: ChildProcess;
  port: number;
  base: string;
  /** Its stdout and stderr so far. */
  log(): string;
  /** Sends `signal` (if it still runs) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `node api/src/main.ts` with `env` on a free port of 127.0.0.1 and waits until it is
 * ready; a start that fails (the process exits, or is not ready within `startTimeoutMs`) throws
 * with the server's output. Tests that restart a server on the same data directory call it again.
 */
export async function spawnServer(
  env: NodeJS.ProcessEnv,
  startTimeoutMs = START_TIMEOUT_MS,
): Promise<ServerProcess> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let log = "";
  const server: ChildProcess = spawn(NODE, ["api/src/main.ts"], {
    cwd: REPO_ROOT,
    // A free metrics port unless the test names one: another server on this machine may hold 9464.
    env: { CAUSEWAY_METRICS_PORT: "0", ...env, PORT: String(port), HOST: "127.0.0.1" },
  });
  server.stdout?.on("data", (c: Buffer) => (log += c.toString()));
  server.stderr?.on("data", (c: Buffer) => (log += c.toString()));
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (server.exitCode !== null || server.signalCode !== null) return;
    const exited = new Promise((r) => server.once("exit", r));
    server.kill(signal);
    await exited;
  };
  // Ready means /readyz and /readyz/models answer 200: the stores answer and the models are in. The start-up
  // (model import) takes as long as the machine makes it, so only startTimeoutMs bounds it.
  const started = Date.now();
  // "close", not "exit": by then the output pipes are drained, so the log is complete.
  const closed = new Promise<void>((r) => server.once("close", () => r()));
  for (;;) {
    if (await ready(base)) break;
    const failure =
      server.exitCode !== null || server.signalCode !== null
        ? `exited (code ${server.exitCode}, signal ${server.signalCode})`
        : Date.now() - started > startTimeoutMs
          ? `not ready after ${Math.round((Date.now() - started) / 1000)} s`
          : null;
    if (failure !== null) {
      await stop();
      await closed;
      throw new Error(`server did not start: ${failure}; its output:\n${log || "(none)"}`);
    }
    await Promise.race([closed, new Promise((r) => setTimeout(r, 500))]);
  }
  return { process: server, port, base, log: () => log, stop };
}

export async function startEmbeddedServer(
  extraEnv: NodeJS.ProcessEnv = {},
  startTimeoutMs = START_TIMEOUT_MS,
): Promise<EmbeddedServer> {
  const dataDir = await mkdtemp(join(tmpdir(), "causeway-e2e-"));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CAUSEWAY_DATA_DIR: dataDir,
    CAUSEWAY_MODEL: DEFAULT_NETWORK,
    CAUSEWAY_HGNC: HGNC_DIR,
    // As the README's quick start: v4 with the libraries and HuRI as its evidence layers.
    CAUSEWAY_LIBRARIES: sharedData("libraries"),
    CAUSEWAY_PPI: HURI_PAIRS,
    // Info keeps the start-up progress (model import) in log(), which a failed start reports.
    LOG_LEVEL: "info",
    ...extraEnv,
  };
  let server = await spawnServer(env, startTimeoutMs).catch(async (err: unknown) => {
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  });
  return {
    get base() {
      return server.base;
    },
    dataDir,
    env,
    log: () => server.log(),
    async newAccount(tier, name = `e2e-${tier}`) {
      const { stdout } = await exec(
        NODE,
        ["api/src/admin/cli.ts", "accounts", "create", "--name", name, "--tier", tier, "--json"],
        { cwd: REPO_ROOT, env },
      );
      return (JSON.parse(stdout.trim().split("\n").at(-1)!) as { api_key: string }).api_key;
    },
    async restart(extraEnv = {}) {
      await server.stop();
      Object.assign(env, extraEnv);
      server = await spawnServer(env, startTimeoutMs);
    },
    async stop() {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
