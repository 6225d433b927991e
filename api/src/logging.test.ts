/** R12: no plaintext API key, callback signature or secret in log output, whatever the outcome. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, submit, type TestApp } from "./testing/helper.ts";

const lines: string[] = [];
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({}, { logLines: lines });
}, 120_000);
afterAll(async () => t.close());

describe("log redaction", () => {
  it("never writes a presented API key or callback signature", async () => {
    const a = await t.account("internal");
    const id = await submit(t, a.key);
    await t.app.inject({ url: `/v1/predictions/${id}`, headers: { "x-api-key": a.key } });
    await t.app.inject({
      url: `/v1/predictions`,
      headers: { "x-api-key": "cw_not-a-real-key-but-secret-looking" },
    });
    const res = await t.callback({
      job_id: id,
      kind: "prediction",
      attempt: "a",
      seq: 0,
      status: "processing",
      processing_step: "model_loaded",
      progress_pct: 45,
    });
    expect(res.statusCode).toBe(200);
    const log = lines.join("\n");
    expect(lines.length).toBeGreaterThan(3);
    expect(log).toContain("[redacted]"); // the multipart plugin's trace line carried the key
    expect(log).not.toContain(a.key);
    expect(log).not.toContain("cw_not-a-real-key");
    expect(log).not.toContain(t.ctx.callbackSecret);
    expect(log).not.toMatch(/v1=[0-9a-f]{64}/);
  });

  it("never writes a download token (a bearer credential) from /files/<token>", async () => {
    await t.ctx.store.put("results/log-test/target_scores.tsv", "id\tscore\n");
    const url = await t.ctx.store.presignGet("results/log-test/target_scores.tsv", {
      filename: "target_scores.tsv",
      expiresInSeconds: 60,
    });
    const path = new URL(url).pathname;
    const token = path.slice("/files/".length);
    expect(token.length).toBeGreaterThan(20);
    const res = await t.app.inject({ url: path });
    expect(res.statusCode).toBe(200);
    // The access line of a streamed body is written when the stream ends, just after inject returns.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const log = lines.join("\n");
    expect(log).toContain("/files/[redacted]");
    expect(log).not.toContain(token);
  });
});
