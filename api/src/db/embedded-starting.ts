/**
 * "A server is starting on this data directory": a marker in the server registry from the first
 * moment of `npm start` (its prestart builds the web app and warms the compile cache, seconds
 * before the database exists) until the server publishes its socket. The admin CLI waits for
 * such a server instead of concluding that none runs and refusing, or picking another one.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import type { EmbeddedAddress } from "./embedded.ts";
import { pidAlive, serverRegistryDir } from "./server-registry.ts";

/** A marker whose process is gone still counts this long: prestart's process ends before the server's begins. */
export const HANDOVER_MS = 15_000;
/** How long the admin CLI waits for a starting server at most (a first start initialises the database). */
export const START_WAIT_MS = 120_000;

const Marker = z.object({ dataDir: z.string(), pid: z.number().int(), since: z.number() });
export type StartingServer = z.infer<typeof Marker>;

const markerPath = (dataDir: string): string =>
  join(
    serverRegistryDir(),
    `starting-${createHash("sha256").update(resolve(dataDir)).digest("hex").slice(0, 16)}.json`,
  );

/** Writes the marker for `dataDir` on behalf of `pid`; the returned function removes it. */
export async function announceStarting(
  dataDir: string,
  pid: number = process.pid,
): Promise<() => Promise<void>> {
  const path = markerPath(dataDir);
  await mkdir(serverRegistryDir(), { recursive: true, mode: 0o700 });
  const marker: StartingServer = { dataDir: resolve(dataDir), pid, since: Date.now() };
  await writeFile(path, JSON.stringify(marker) + "\n", { mode: 0o600 });
  return async () => {
    // Only our own: a later start on the same directory may have replaced it.
    const current = await readMarker(path);
    if (current?.pid === pid && current.since === marker.since) await rm(path, { force: true });
  };
}

async function readMarker(path: string): Promise<StartingServer | null> {
  try {
    return Marker.parse(JSON.parse(await readFile(path, "utf8")));
  } catch {
    return null;
  }
}

/** The server starting on `dataDir`, if any: its process lives, or it handed over a moment ago. */
export async function findStartingServer(dataDir: string, now = Date.now()): Promise<StartingServer | null> {
  const marker = await readMarker(markerPath(dataDir));
  if (marker === null) return null;
  return pidAlive(marker.pid) || now - marker.since < HANDOVER_MS ? marker : null;
}

/**
 * Waits (at most `timeoutMs`) while a server is starting on `dataDir`: its address once it
 * publishes one, or null when none is starting, it stopped, or the time is up.
 */
export async function waitForStartingServer(
  dataDir: string,
  findRunning: (dataDir: string) => Promise<EmbeddedAddress | null>,
  o: { timeoutMs?: number; pollMs?: number; onWait?: (s: StartingServer) => void } = {},
): Promise<EmbeddedAddress | null> {
  const deadline = Date.now() + (o.timeoutMs ?? START_WAIT_MS);
  let told = false;
  for (;;) {
    const running = await findRunning(dataDir);
    if (running) return running;
    const starting = await findStartingServer(dataDir);
    if (starting === null || Date.now() >= deadline) return null;
    if (!told) o.onWait?.(starting);
    told = true;
    await sleep(o.pollMs ?? 250);
  }
}

/**
 * The process that stays for all of `npm start` when this one is a lifecycle script: npm, the
 * parent of the `sh -c` that runs the script (Linux /proc); else the parent itself.
 */
export function npmProcessId(): number {
  try {
    const stat = readFileSync(`/proc/${process.ppid}/stat`, "utf8");
    // Field 4 (ppid) follows the command name in parentheses, which may itself hold spaces.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (Number.isInteger(ppid) && ppid > 1) return ppid;
  } catch {
    // Not Linux: the handover window covers the gap.
  }
  return process.ppid;
}
