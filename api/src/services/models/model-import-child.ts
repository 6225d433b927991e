/**
 * One model import in a child process of the server (forked by `importModelInChild`). An
 * import holds the network, the transition matrices and the influence bundle at once (close to
 * 1 GB at its peak); done in the server, that memory stays resident after the import (V8 and
 * malloc keep the pages), done here it goes back to the system when the child exits.
 *
 * Protocol (Node IPC): the parent sends one `ImportRequest`; the child answers with
 * `{ type: "progress", message }` lines and ends with `{ type: "done", manifest }` or
 * `{ type: "failed", message }`.
 */
import { fork } from "node:child_process";
import { setPriority } from "node:os";
import { fileURLToPath } from "node:url";
import type { ScoringVersion } from "@causeway/contract";
import { FsObjectStore, openS3ObjectStore } from "@causeway/runner/storage";
import type { Config } from "../../config.ts";
import { runnerPieces, type RunnerPieces } from "../../runner-pieces.ts";

interface ImportRequest {
  networkPath: string;
  hgncDir: string;
  version: string;
  scoring: ScoringVersion;
  librariesDir?: string;
  ppiFiles?: readonly string[];
  cacheDir?: string;
  reuseFrom?: readonly string[];
  storage: Config["storage"];
}

type ImportReply =
  | { type: "progress"; message: string }
  | { type: "done"; manifest: unknown }
  | { type: "failed"; message: string };

/** The nice value of a background import (0 is the server's, 19 the lowest priority). */
const BACKGROUND_PRIORITY = 15;

/** RunnerPieces.importModel, run in a child process that opens the same object store. */
export function importModelInChild(storage: Config["storage"]): RunnerPieces["importModel"] {
  return (options) =>
    new Promise((resolve, reject) => {
      const child = fork(fileURLToPath(import.meta.url), [], {
        stdio: ["ignore", "inherit", "inherit", "ipc"],
        serialization: "advanced",
      });
      // An import nothing waits for yields the CPU to jobs (a warm runner starting, a job running).
      if (options.background && child.pid !== undefined) {
        try {
          setPriority(child.pid, BACKGROUND_PRIORITY);
        } catch {
          // Not permitted here: it runs at the server's priority.
        }
      }
      let settled = false;
      child.on("message", (reply: ImportReply) => {
        if (reply.type === "progress") options.onProgress?.(reply.message);
        else if (reply.type === "done") {
          settled = true;
          resolve(reply.manifest);
        } else {
          settled = true;
          reject(new Error(reply.message));
        }
      });
      child.once("error", (err) => {
        if (!settled) reject(err);
        settled = true;
      });
      child.once("exit", (code, signal) => {
        if (!settled) reject(new Error(`model import process ended (${signal ?? `exit ${code}`})`));
        settled = true;
      });
      const request: ImportRequest = {
        networkPath: options.networkPath,
        hgncDir: options.hgncDir,
        version: options.version,
        scoring: options.scoring,
        ...(options.librariesDir ? { librariesDir: options.librariesDir } : {}),
        ...(options.ppiFiles ? { ppiFiles: options.ppiFiles } : {}),
        cacheDir: options.cacheDir,
        ...(options.reuseFrom ? { reuseFrom: options.reuseFrom } : {}),
        storage,
      };
      child.send(request);
    });
}

async function serve(request: ImportRequest): Promise<ImportReply> {
  const s = request.storage;
  const store =
    s.kind === "fs"
      ? new FsObjectStore(s.dir)
      : await openS3ObjectStore({
          bucket: s.bucket,
          region: s.region,
          endpoint: s.endpoint,
          publicEndpoint: s.publicEndpoint,
          forcePathStyle: s.forcePathStyle,
          accessKeyId: s.accessKeyId,
          secretAccessKey: s.secretAccessKey,
        });
  const manifest = await runnerPieces.importModel({
    ...request,
    store,
    onProgress: (message) => {
      // The server stopped mid-import: nothing to report to (the import ends with the process).
      if (process.connected) process.send?.({ type: "progress", message } satisfies ImportReply);
    },
  });
  return { type: "done", manifest };
}

// Forked: run the one request, answer, exit.
if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.once("message", (request: ImportRequest) => {
    void serve(request)
      .catch((err: unknown): ImportReply => ({
        type: "failed",
        message: err instanceof Error ? err.message : String(err),
      }))
      .then((reply) =>
        process.connected ? process.send?.(reply, undefined, {}, () => process.exit(0)) : process.exit(0),
      );
  });
  // The server stopped: its import ends with it (the next start imports again).
  process.once("disconnect", () => process.exit(0));
}
