import { describe, expect, inject, it } from "vitest";
import { uniquePrefix } from "../harness/isolation.ts";
import { ObjectNotFound } from "../../runner/src/storage/index.ts";
import { S3ObjectStore } from "../../runner/src/storage/s3-store.ts";

const prefix = uniquePrefix("s3-range");

describe("S3ObjectStore.getRange", () => {
  it("reads byte ranges with Range requests, fewer at the end, none past it", async () => {
    const s3 = inject("s3");
    const store = new S3ObjectStore({ ...s3 });
    const key = `${prefix}obj.bin`;
    await store.put(key, Buffer.from("0123456789"));
    expect((await store.getRange(key, 2, 5)).toString()).toBe("234");
    expect((await store.getRange(key, 8, 20)).toString()).toBe("89");
    expect((await store.getRange(key, 12, 20)).length).toBe(0);
    expect((await store.getRange(key, 3, 3)).length).toBe(0);
    await expect(store.getRange(`${prefix}missing.bin`, 0, 4)).rejects.toBeInstanceOf(ObjectNotFound);
  });
});
