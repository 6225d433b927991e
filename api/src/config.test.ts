import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.ts";

describe("loadConfig", () => {
  it("needs the callback secret with a database, except for commands that never see callbacks (migrate)", () => {
    const env = { DATABASE_URL: "postgres://u:p@db:5432/causeway" };
    expect(() => loadConfig(env)).toThrow(/CAUSEWAY_CALLBACK_SECRET/);
    const c = loadConfig(env, { forCallbacks: false });
    expect(c.database.kind).not.toBe("embedded");
    expect(c.callbackSecret).toBeUndefined();
  });

  it("defaults to embedded mode with the contract's limits", () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.database.kind).toBe("embedded");
    expect(c.storage.kind).toBe("fs");
    expect(c.dispatch.kind).toBe("local");
    expect(c.redisUrl).toBeUndefined();
    expect(c.limits).toMatchObject({
      rateLimit: 60,
      rateWindowSeconds: 60,
      inflightLimit: 1,
      defaultQuota: 100,
      edgeEnabled: true,
      edgeLimit: 30,
      edgeWindowSeconds: 60,
      trustedProxies: [],
    });
    expect(c.model.defaultVersion).toBeUndefined();
    expect(c.model.versions).toEqual([
      { version: "v4", scoring: "v4" },
      { version: "v3", scoring: "v3" },
      { version: "v1", scoring: "v1" },
      { version: "v2", scoring: "v2" },
    ]);
  });

  it("reads the versions to import as NAME or NAME=SCORING and refuses unknown scorings", () => {
    expect(loadConfig({ CAUSEWAY_MODEL_VERSIONS: "2026-11=v2, v1" }).model.versions).toEqual([
      { version: "2026-11", scoring: "v2" },
      { version: "v1", scoring: "v1" },
    ]);
    expect(() => loadConfig({ CAUSEWAY_MODEL_VERSIONS: "v9" })).toThrow(
      /v9: expected NAME or NAME=v1\|v2\|v3\|v4/,
    );
  });

  it("reports every bad value on its own line, never echoing secrets", () => {
    let err: unknown;
    try {
      loadConfig({
        PORT: "70000",
        CAUSEWAY_STORAGE: "s3",
        DATABASE_URL: "postgres://u:pw@h/db",
        CAUSEWAY_EDGE_LIMIT_ENABLED: "maybe",
        CAUSEWAY_CALLBACK_SECRET: "short",
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const lines = (err as Error).message.split("\n").slice(1);
    expect(lines.some((l) => l.includes("PORT"))).toBe(true);
    expect(lines.some((l) => l.includes("S3_BUCKET"))).toBe(true);
    expect(lines.some((l) => l.includes("CAUSEWAY_EDGE_LIMIT_ENABLED"))).toBe(true);
    expect(lines.some((l) => l.includes("CAUSEWAY_CALLBACK_SECRET"))).toBe(true);
    expect((err as Error).message).not.toContain("short");
    expect((err as Error).message).not.toContain("pw@");
  });

  it("selects production parts from DATABASE_URL, REDIS_URL and S3 settings", () => {
    const c = loadConfig({
      DATABASE_URL: "postgres://localhost/causeway",
      REDIS_URL: "redis://localhost:6379",
      CAUSEWAY_STORAGE: "s3",
      S3_BUCKET: "causeway",
      S3_ENDPOINT: "http://127.0.0.1:9000",
      S3_FORCE_PATH_STYLE: "true",
      CAUSEWAY_CALLBACK_SECRET: "x".repeat(40),
      CAUSEWAY_TRUSTED_PROXIES: "10.0.0.1, 10.0.0.2",
    });
    expect(c.database).toMatchObject({ kind: "postgres", url: "postgres://localhost/causeway" });
    expect(c.storage).toMatchObject({ kind: "s3", bucket: "causeway", forcePathStyle: true });
    expect(c.limits.trustedProxies).toEqual(["10.0.0.1", "10.0.0.2"]);
  });
});
