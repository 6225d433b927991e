/**
 * First step of `npm start` (prestart): marks the data directory as having a server on its way,
 * on behalf of npm's process, so that an admin CLI run while the web app builds and the compile
 * cache warms waits for this server (embedded-starting.ts). Best effort: it never stops a start.
 * It reads the two variables itself rather than loading config.ts, to add little to start-up;
 * config.ts reports any configuration error a moment later.
 */
import { resolve } from "node:path";
import { announceStarting, npmProcessId } from "../db/embedded-starting.ts";

// config.ts: no DATABASE_URL means embedded, on CAUSEWAY_DATA_DIR (default ./.causeway).
if (!process.env.DATABASE_URL)
  await announceStarting(resolve(process.env.CAUSEWAY_DATA_DIR || "./.causeway"), npmProcessId()).catch(
    () => undefined,
  );
