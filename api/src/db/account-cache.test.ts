import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../testing/helper.ts";
import { AccountCache } from "./account-cache.ts";
import { revokeKey, type Account } from "./accounts.ts";

const alice: Account = { id: "a", name: "alice", tier: "internal", apiKeyId: "k1" };

describe("AccountCache", () => {
  it("trusts an entry for its lifetime only, on its own clock", () => {
    let now = 0;
    const cache = new AccountCache(5000, () => now);
    cache.set("h", alice);
    now = 4999;
    expect(cache.get("h")).toBe(alice);
    now = 5000;
    expect(cache.get("h")).toBeNull();
  });

  it("forgets every entry of a revoked key", () => {
    const cache = new AccountCache(5000, () => 0);
    cache.set("h1", alice);
    cache.set("h2", { ...alice, apiKeyId: "k2" });
    cache.forgetKey("k1");
    expect(cache.get("h1")).toBeNull();
    expect(cache.get("h2")).not.toBeNull();
  });
});

describe("authentication with the account cache", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  }, 120_000);
  afterAll(async () => t.close());

  const quota = (key: string) =>
    t.app.inject({ url: "/v1/usage/predictions/quota", headers: { "x-api-key": key } });

  it("answers a key revoked in this process with 401 at once, though it was just cached", async () => {
    const a = await t.account("internal");
    expect((await quota(a.key)).statusCode).toBe(200);
    expect((await quota(a.key)).statusCode).toBe(200);
    const { rows } = await t.ctx.db.query<{ id: string }>(`SELECT id FROM api_keys WHERE account_id = $1`, [
      a.id,
    ]);
    expect(await revokeKey(t.ctx.db, rows[0]!.id)).toBe(true);
    const res = await quota(a.key);
    expect(res.statusCode).toBe(401);
    expect(res.headers["x-service-error-code"]).toBe("unauthorized");
  });

  it("does not remember unknown keys: a key created after a refusal works at once", async () => {
    expect((await quota("cw_unknown")).statusCode).toBe(401);
    const a = await t.account("external");
    expect((await quota(a.key)).statusCode).toBe(200);
  });
});
