/**
 * Where an API process keeps temporary files: one folder per data directory under the system
 * temp directory (`causeway-<hash of the data dir>/`), with `uploads/` (a submission's upload,
 * removed when it ends), `runners/` (the TMPDIR of local runners: their job work folders) and
 * `pg/` (the embedded database's socket). The folder goes at a clean stop when it is empty.
 * Keyed by the data directory because only one server runs on it at a time (the embedded
 * database's lock), so at start everything in it older than the process belongs to a process
 * that died, and other servers' files on the same host are never touched.
 */
import { createHash } from "node:crypto";
import { rmdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function workRoot(dataDir: string): string {
  return join(tmpdir(), `causeway-${createHash("sha256").update(dataDir).digest("hex").slice(0, 16)}`);
}

export const uploadsDir = (dataDir: string): string => join(workRoot(dataDir), "uploads");
export const runnersTmpDir = (dataDir: string): string => join(workRoot(dataDir), "runners");

/**
 * At a clean stop: removes the work folder when nothing is left in it. Only empty folders go
 * (`rmdir`), so an upload or a runner's folder that outlived its request stays for the next
 * start's sweep instead of being deleted under a process that may still use it.
 */
export async function removeEmptyWorkDirs(dataDir: string): Promise<void> {
  for (const dir of [uploadsDir(dataDir), runnersTmpDir(dataDir), workRoot(dataDir)]) {
    try {
      await rmdir(dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTEMPTY" && code !== "EEXIST") throw err;
    }
  }
}
