import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../testing/helper.ts";

const lines: string[] = [];
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({}, { logLines: lines });
}, 120_000);
afterAll(async () => t.close());

describe("access log", () => {
  it("writes one line per request with the request, the status and the time", async () => {
    const a = await t.account("internal");
    lines.length = 0;
    await t.app.inject({ url: "/v1/usage/predictions/quota", headers: { "x-api-key": a.key } });
    await t.app.inject({ url: "/health" });
    const parsed = lines.map(
      (l) => JSON.parse(l) as { msg: string; req: { url: string }; res: unknown; responseTime: unknown },
    );
    expect(parsed.map((p) => p.msg)).toEqual(["request completed", "request completed"]);
    expect(parsed[0]!.req).toMatchObject({ method: "GET", url: "/v1/usage/predictions/quota" });
    expect(parsed[0]!.res).toEqual({ statusCode: 200 });
    expect(typeof parsed[0]!.responseTime).toBe("number");
    expect(parsed[1]!.req.url).toBe("/health");
    expect(lines.join("\n")).not.toContain(a.key);
  });
});
