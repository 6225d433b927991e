/** Keys pasted into a query string never reach the log: credential-named parameters and key-shaped text. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../testing/helper.ts";
import { loggedUrl } from "./logging.ts";

describe("loggedUrl", () => {
  it.each([
    ["/v1/predictions?api_key=abc123", "/v1/predictions?api_key=[redacted]"],
    [
      "/v1/predictions?limit=5&X-API-Key=abc&cursor=x",
      "/v1/predictions?limit=5&X-API-Key=[redacted]&cursor=x",
    ],
    ["/v1/predictions?access_token=t&apikey=k", "/v1/predictions?access_token=[redacted]&apikey=[redacted]"],
    ["/v1/predictions?api%5Fkey=abc", "/v1/predictions?api%5Fkey=[redacted]"],
    ["/v1/predictions?password=p&signature=s", "/v1/predictions?password=[redacted]&signature=[redacted]"],
    [`/v1/predictions?q=cw_${"A".repeat(43)}`, "/v1/predictions?q=[redacted]"],
    [`/v1/predictions/cw_${"b".repeat(43)}`, "/v1/predictions/[redacted]"],
    ["/v1/predictions?limit=5&target=STAT1", "/v1/predictions?limit=5&target=STAT1"],
    ["/files/some-token?x=1", "/files/[redacted]?x=1"],
  ])("%s → %s", (url, logged) => {
    expect(loggedUrl(url)).toBe(logged);
  });
});

describe("the access log", () => {
  const lines: string[] = [];
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({}, { logLines: lines });
  }, 120_000);
  afterAll(async () => t.close());

  it("does not write a key passed as ?api_key=, valid or not", async () => {
    const a = await t.account("internal");
    for (const url of [`/v1/predictions?api_key=${a.key}`, `/health?token=hunter2-secret`]) {
      await t.app.inject({ url });
    }
    const log = lines.join("\n");
    expect(log).toContain("api_key=[redacted]");
    expect(log).not.toContain(a.key);
    expect(log).not.toContain("hunter2-secret");
  });
});
