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
import { DEFAULT_NETWORK, HGNC_DIR, REPO_ROOT, sharedData } from "../shared-data.ts";

const exec = promisify(execFile);
export const NODE = join(REPO_ROOT, "node_modules", ".bin", "node");

export interface EmbeddedServer {
  base: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  log(): string;
  /** A new account through the admin CLI; returns its API key. */
  newAccount(tier: "internal" | "external", name?: string): Promise<string>;
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

export async function startEmbeddedServer(extraEnv: NodeJS.ProcessEnv = {}): Promise<EmbeddedServer> {
  const dataDir = await mkdtemp(join(tmpdir(), "causeway-e2e-"));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CAUSEWAY_DATA_DIR: dataDir,
    CAUSEWAY_MODEL: DEFAULT_NETWORK,
    CAUSEWAY_HGNC: HGNC_DIR,
    CAUSEWAY_LIBRARIES: sharedData("libraries"),
    LOG_LEVEL: "warn",
    ...extraEnv,
  };
  let log = "";
  const server: ChildProcess = spawn(NODE, ["api/src/main.ts"], {
    cwd: REPO_ROOT,
    env: { ...env, PORT: String(port), HOST: "127.0.0.1" },
  });
  server.stdout?.on("data", (c: Buffer) => (log += c.toString()));
  server.stderr?.on("data", (c: Buffer) => (log += c.toString()));
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((r) => server.once("exit", r));
      server.kill("SIGTERM");
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  };
  // The first start imports the interactome before it serves.
  const deadline = Date.now() + 280_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (server.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`server did not start: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    base,
    dataDir,
    env,
    log: () => log,
    async newAccount(tier, name = `e2e-${tier}`) {
      const { stdout } = await exec(
        NODE,
        ["api/src/admin/cli.ts", "accounts", "create", "--name", name, "--tier", tier, "--json"],
        { cwd: REPO_ROOT, env },
      );
      return (JSON.parse(stdout.trim().split("\n").at(-1)!) as { api_key: string }).api_key;
    },
    stop,
  };
}
