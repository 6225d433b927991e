/**
 * Creates a new PGlite database directory in a short-lived child process. PGlite's initdb runs a
 * second WebAssembly instance inside the process that opens the database, and the memory of
 * both stays resident after initdb ends (~200 MB on a fresh data directory, measured with
 * `npm run bench startup`); done here, it goes back to the system when the child exits and the
 * server opens a directory that exists, as on every later start.
 *
 * Protocol: forked with the directory as its argument; exits 0 once the directory is created,
 * 1 (its reason on stderr) otherwise.
 */
import { PGlite } from "@electric-sql/pglite";
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { EMBEDDED_PG_OPTIONS } from "./embedded-settings.ts";

/** Runs initdb for `dbPath` in a child process; rejects with its error output when it fails. */
export function initEmbeddedDatabase(dbPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [dbPath], {
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-2048)));
    child.once("error", reject);
    child.once("exit", (code, signal) =>
      code === 0
        ? resolve()
        : reject(
            new Error(
              `creating the embedded database failed (${signal ?? `exit ${code}`}): ${stderr.trim()}`,
            ),
          ),
    );
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2]) {
  try {
    const db = await PGlite.create(process.argv[2], EMBEDDED_PG_OPTIONS);
    await db.close();
    process.exit(0);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
