/**
 * Where an API process keeps temporary files: one folder per data directory under the system
 * temp directory (`causeway-<hash of the data dir>/`), with `uploads/` (a submission's upload,
 * removed when it ends) and `runners/` (the TMPDIR of local runners: their job work folders).
 * Keyed by the data directory because only one server runs on it at a time (the embedded
 * database's lock), so at start everything in it older than the process belongs to a process
 * that died, and other servers' files on the same host are never touched.
 */
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function workRoot(dataDir: string): string {
  return join(tmpdir(), `causeway-${createHash("sha256").update(dataDir).digest("hex").slice(0, 16)}`);
}

export const uploadsDir = (dataDir: string): string => join(workRoot(dataDir), "uploads");
export const runnersTmpDir = (dataDir: string): string => join(workRoot(dataDir), "runners");
