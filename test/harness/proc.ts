import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, closeSync, openSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** A long-running child process of the harness (a database, an API server, ...). */
export interface ManagedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** File that receives the process's stdout and stderr. */
  readonly logPath: string;
  /** Resolves with the exit code (or null when killed by a signal) once the process ends. */
  readonly exited: Promise<number | null>;
  /** True once the process has ended. */
  hasExited(): boolean;
  /** The last lines of the log, for error messages. */
  logTail(lines?: number): string;
  /** Sends `signal` (SIGTERM by default), waits up to `graceMs`, then SIGKILLs. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
}

/** Options of {@link startProcess}. */
export interface StartProcessOptions {
  name: string;
  command: string;
  args: readonly string[];
  logPath: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Run as this user (PostgreSQL refuses to run as root). */
  uid?: number;
  gid?: number;
}

// Children are killed when the test process exits for any reason (a crash, Ctrl-C), so no stray
// etcd or postgres keeps a port or a temp dir alive after vitest has gone.
const running = new Set<ChildProcess>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const child of running) child.kill("SIGKILL");
  });
}

/** Starts a child process whose output goes to a log file (never to a pipe that could fill up). */
export function startProcess(options: StartProcessOptions): ManagedProcess {
  installExitHook();
  const fd = openSync(options.logPath, "a");
  const child = spawn(options.command, [...options.args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["ignore", fd, fd],
    uid: options.uid,
    gid: options.gid,
  });
  closeSync(fd);
  running.add(child);
  let ended = false;
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => {
      ended = true;
      running.delete(child);
      resolve(code);
    });
    child.once("error", (error) => {
      ended = true;
      running.delete(child);
      // A spawn error (ENOENT, EACCES) is written to the log so that logTail() explains it.
      try {
        appendFileSync(options.logPath, `[harness] could not start ${options.command}: ${error.message}\n`);
      } catch {
        /* the log is best effort */
      }
      resolve(null);
    });
  });
  const logTail = (lines = 40): string => {
    try {
      return readFileSync(options.logPath, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
    } catch {
      return "(no log)";
    }
  };
  return {
    name: options.name,
    child,
    logPath: options.logPath,
    exited,
    hasExited: () => ended,
    logTail,
    async stop(signal: NodeJS.Signals = "SIGTERM", graceMs = 10_000): Promise<void> {
      if (ended) return;
      child.kill(signal);
      // The grace timer is cleared once the process is gone, so no timer keeps vitest alive.
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * The one polling helper of the tests: calls `check` until it returns a value other than
 * undefined, null or false, and returns that value. A check that throws counts as "not yet";
 * the last error is in the timeout message. With `proc`, it fails early, with the process log,
 * once the process has exited: a server that crashed at start should not cost the whole timeout.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | null | false>,
  options: {
    timeoutMs?: number;
    intervalMs?: number;
    proc?: Pick<ManagedProcess, "name" | "logPath" | "hasExited" | "logTail">;
  } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    if (options.proc?.hasExited()) {
      throw new Error(
        `${what}: ${options.proc.name} exited during start. Log ${options.proc.logPath}:\n${options.proc.logTail()}`,
      );
    }
    try {
      const value = await check();
      if (value !== undefined && value !== null && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? ` (last error: ${lastError.message})` : "";
      const log = options.proc ? `\nLog ${options.proc.logPath}:\n${options.proc.logTail()}` : "";
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}${log}`);
    }
    await sleep(options.intervalMs ?? 100);
  }
}

/** A temp directory removed by `remove()` unless CAUSEWAY_KEEP_TEMP=1 (to read logs after a run). */
export interface TempDir {
  readonly path: string;
  remove(): Promise<void>;
}

/** Creates a temp directory named after `label` under the OS temp dir. */
export async function makeTempDir(label: string): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), `causeway-${label}-`));
  return {
    path,
    async remove(): Promise<void> {
      if (process.env.CAUSEWAY_KEEP_TEMP === "1") return;
      await rm(path, { recursive: true, force: true });
    },
  };
}
