/**
 * Where embedded servers of this user announce themselves, kept apart from embedded.ts so that
 * the start-up marker (embedded-starting.ts) loads without PGlite.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Where embedded servers of this user announce their data directory, so that an admin CLI
 * pointed at another directory can find the server that runs ($XDG_RUNTIME_DIR, else the
 * temp directory).
 */
export function serverRegistryDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_RUNTIME_DIR || tmpdir(), `causeway-embedded-${process.getuid?.() ?? "user"}`);
}

/** Whether a process with this id exists (EPERM: it does, under another user). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === "EPERM";
  }
}
