// The download links the API hands out (S3ObjectStore.presignGet) against MinIO, which checks
// signatures and expiry the way AWS S3 does; s3rver, the shared test S3, accepts any link.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { S3ObjectStore } from "../../runner/src/storage/s3-store.ts";
import { startMinio } from "../harness/minio.ts";
import type { S3Server } from "../harness/s3.ts";

let minio: S3Server | undefined;
let store: S3ObjectStore;
const KEY = "outputs/presign/ranked_targets.tsv";
const BODY = "protein\tscore\nSTAT1\t0.93\n";

beforeAll(async () => {
  minio = await startMinio("causeway-presign");
  store = new S3ObjectStore(minio.config);
  await store.put(KEY, BODY, "text/tab-separated-values");
});
afterAll(async () => {
  await minio?.stop();
});

/** The link with one query parameter replaced. */
function withParam(url: string, name: string, value: string): string {
  const u = new URL(url);
  u.searchParams.set(name, value);
  return u.toString();
}

describe("presigned download links on a signature-checking S3", () => {
  it("a fresh link downloads the object under the requested file name", async () => {
    const url = await store.presignGet(KEY, { filename: "ranked_targets.tsv", expiresInSeconds: 60 });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(BODY);
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="ranked_targets.tsv"');
  });

  it("a tampered link is refused: another key, a longer lifetime, another file name, a changed signature", async () => {
    const url = await store.presignGet(KEY, { filename: "ranked_targets.tsv", expiresInSeconds: 60 });
    await store.put("outputs/presign/other.tsv", "secret\n");
    const other = new URL(url);
    other.pathname = other.pathname.replace("ranked_targets.tsv", "other.tsv");
    const signature = new URL(url).searchParams.get("X-Amz-Signature") ?? "";
    const flipped = `${signature.slice(0, -1)}${signature.endsWith("0") ? "1" : "0"}`;
    const tampered = [
      other.toString(),
      withParam(url, "X-Amz-Expires", "604800"),
      withParam(url, "response-content-disposition", 'attachment; filename="evil.html"'),
      withParam(url, "X-Amz-Signature", flipped),
    ];
    for (const link of tampered) {
      const res = await fetch(link);
      const text = await res.text();
      expect(res.status, link).toBe(403);
      expect(text).toContain("SignatureDoesNotMatch");
      expect(text).not.toContain("STAT1");
    }
  });

  it("a link stops working once it has expired", async () => {
    const url = await store.presignGet(KEY, { filename: "ranked_targets.tsv", expiresInSeconds: 1 });
    expect((await fetch(url)).status).toBe(200);
    await sleep(2_500);
    const res = await fetch(url);
    expect(res.status).toBe(403);
    expect(await res.text()).toMatch(/expired/i);
  });

  it("requests signed with the wrong secret are refused", async () => {
    if (!minio) throw new Error("no minio");
    const wrong = new S3ObjectStore({ ...minio.config, secretAccessKey: "not-the-secret-not-the-secret-0" });
    await expect(wrong.put("outputs/presign/forged.tsv", "x")).rejects.toThrow(/signature/i);
  });
});
