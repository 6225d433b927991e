import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FsObjectStore } from "./fs-store.ts";
import { ObjectNotFound } from "./object-store.ts";

const dir = await mkdtemp(join(tmpdir(), "causeway-fs-range-"));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("FsObjectStore.getRange", () => {
  it("reads the asked bytes, fewer at the end of the object, none past it", async () => {
    const store = new FsObjectStore(dir);
    await store.put("a/b.bin", Buffer.from("0123456789"));
    expect((await store.getRange("a/b.bin", 2, 5)).toString()).toBe("234");
    expect((await store.getRange("a/b.bin", 8, 20)).toString()).toBe("89");
    expect((await store.getRange("a/b.bin", 12, 20)).length).toBe(0);
    expect((await store.getRange("a/b.bin", 3, 3)).length).toBe(0);
  });

  it("refuses bad ranges and reports missing objects", async () => {
    const store = new FsObjectStore(dir);
    await expect(store.getRange("nope.bin", 0, 1)).rejects.toBeInstanceOf(ObjectNotFound);
    await expect(store.getRange("a/b.bin", 5, 2)).rejects.toThrow("invalid byte range");
    await expect(store.getRange("a/b.bin", -1, 2)).rejects.toThrow("invalid byte range");
  });
});
