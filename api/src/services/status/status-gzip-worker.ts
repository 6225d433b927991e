/**
 * Worker thread that gzips stored status bodies at the lowest priority: a third of a second of
 * compression per 13 MB body, never urgent (until it is ready the body goes out uncompressed),
 * so it must not compete with requests, runner callbacks or the next job's render. Its own
 * thread, and only node:zlib loaded, so it costs little memory.
 */
import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import { gzipSync } from "node:zlib";

export interface GzipRequest {
  id: number;
  bytes: Uint8Array;
}

export type GzipResponse =
  { id: number; ok: true; gzipped: Uint8Array } | { id: number; ok: false; message: string };

// On Linux, setpriority(0) applies to the calling thread only: this worker, not the event loop.
try {
  setPriority(19);
} catch {
  // Not permitted here: run at normal priority.
}

parentPort?.on("message", (req: GzipRequest) => {
  let res: GzipResponse;
  try {
    res = { id: req.id, ok: true, gzipped: gzipSync(req.bytes) };
  } catch (err) {
    res = { id: req.id, ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage(res);
});
