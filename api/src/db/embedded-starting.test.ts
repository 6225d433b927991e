import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmbeddedAddress } from "./embedded.ts";
import {
  HANDOVER_MS,
  announceStarting,
  findStartingServer,
  waitForStartingServer,
} from "./embedded-starting.ts";
import { serverRegistryDir } from "./server-registry.ts";

let runtime: string;
const saved = process.env.XDG_RUNTIME_DIR;
beforeAll(async () => {
  // Its own registry: the markers of servers running on this machine must not be seen.
  runtime = await mkdtemp(join(tmpdir(), "causeway-starting-"));
  process.env.XDG_RUNTIME_DIR = runtime;
});
afterAll(async () => {
  if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
  else process.env.XDG_RUNTIME_DIR = saved;
  await rm(runtime, { recursive: true, force: true });
});

const ADDRESS: EmbeddedAddress = { host: "127.0.0.1", port: 5432, pid: process.pid };
/** No process has this id (above Linux's pid_max). */
const DEAD_PID = 2 ** 22 + 1;

describe("a server starting on a data directory", () => {
  it("is waited for until it publishes its address", async () => {
    const remove = await announceStarting("/data/a");
    let calls = 0;
    const waits: number[] = [];
    const found = await waitForStartingServer("/data/a", async () => (++calls >= 4 ? ADDRESS : null), {
      pollMs: 10,
      onWait: (s) => waits.push(s.pid),
    });
    expect(found).toEqual(ADDRESS);
    expect(calls).toBe(4);
    expect(waits).toEqual([process.pid]);
    await remove();
    expect(await readdir(serverRegistryDir())).toEqual([]);
  });

  it("is not waited for when none is starting there, nor beyond the bound", async () => {
    const remove = await announceStarting("/data/b");
    const t0 = Date.now();
    expect(await waitForStartingServer("/data/other", async () => null, { pollMs: 10 })).toBeNull();
    expect(Date.now() - t0).toBeLessThan(200);
    expect(
      await waitForStartingServer("/data/b", async () => null, { pollMs: 10, timeoutMs: 300 }),
    ).toBeNull();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
    await remove();
  });

  it("counts a marker whose process is gone only for the handover moment", async () => {
    await announceStarting("/data/c", DEAD_PID);
    const marker = await findStartingServer("/data/c");
    expect(marker).toMatchObject({ pid: DEAD_PID, dataDir: "/data/c" });
    expect(await findStartingServer("/data/c", marker!.since + HANDOVER_MS + 1)).toBeNull();
  });

  it("leaves a later start's marker in place", async () => {
    const first = await announceStarting("/data/d", DEAD_PID);
    const second = await announceStarting("/data/d");
    await first();
    expect(await findStartingServer("/data/d")).toMatchObject({ pid: process.pid });
    await second();
    expect(await findStartingServer("/data/d")).toBeNull();
  });
});
