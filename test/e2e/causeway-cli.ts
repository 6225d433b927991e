/** The `causeway` command-line client as the end-to-end tests run it against an embedded server. */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "../shared-data.ts";
import { NODE } from "./embedded-server.ts";

const exec = promisify(execFile);

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The signal that ended it (e.g. SIGTERM at the timeout), else null. */
  signal: string | null;
}

/** The environment of a user with only this server, key and home (no config file of their own). */
export function cliEnv(base: string, key: string, home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    CAUSEWAY_URL: base,
    CAUSEWAY_API_KEY: key,
    CAUSEWAY_CONFIG: join(home, "no-config.json"),
  };
}

/** Runs the CLI, through npx (the installed bin) or straight with Node 24; never throws on a failed command. */
export async function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  options: { npx?: boolean } = {},
): Promise<CliRun> {
  const [cmd, argv] = options.npx
    ? ["npx", ["--no-install", "causeway", ...args]]
    : [NODE, ["api/src/client/cli.ts", ...args]];
  try {
    const { stdout, stderr } = await exec(cmd, argv, {
      cwd: REPO_ROOT,
      env,
      maxBuffer: 64 * 1024 * 1024,
      timeout: 280_000,
    });
    return { code: 0, stdout, stderr, signal: null };
  } catch (err) {
    const e = err as { code?: number | null; stdout?: string; stderr?: string; signal?: string | null };
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "", signal: e.signal ?? null };
  }
}
