import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildTestApp,
  completeJob,
  splitForm,
  validationArtifacts,
  type TestApp,
} from "../testing/helper.ts";
import { signWebhook } from "./deliverer.ts";
import { deliveryOf } from "../db/webhook-deliveries.ts";
import { WebhookSecretBox, rotateWebhookSecret, webhookSecret } from "./secrets.ts";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ CAUSEWAY_INFLIGHT_LIMIT: "1000", CAUSEWAY_WEBHOOK_ALLOW_PRIVATE: "true" });
}, 120_000);
afterAll(async () => t.close());

describe("webhook secrets", () => {
  it("are stored sealed, open only under the same server secret, and rotate", async () => {
    const box = new WebhookSecretBox("a".repeat(40));
    const sealed = box.seal("whsec_x");
    expect(sealed).not.toContain("whsec_x");
    expect(box.open(sealed)).toBe("whsec_x");
    expect(() => new WebhookSecretBox("b".repeat(40)).open(sealed)).toThrow();
    const { id } = await t.account("internal");
    const tBox = new WebhookSecretBox(t.ctx.callbackSecret);
    const first = await rotateWebhookSecret(t.ctx.db, tBox, id);
    const second = await rotateWebhookSecret(t.ctx.db, tBox, id);
    expect(first).not.toBe(second);
    expect(await webhookSecret(t.ctx.db, tBox, id)).toBe(second);
    const { rows } = await t.ctx.db.query<{ secret_sealed: string }>(
      "SELECT secret_sealed FROM webhook_secrets WHERE account_id = $1",
      [id],
    );
    expect(rows[0]!.secret_sealed).not.toContain(second!.slice(6));
    expect(await rotateWebhookSecret(t.ctx.db, tBox, "00000000-0000-4000-8000-000000000000")).toBeNull();
  });
});

describe("completion webhooks (embedded database)", () => {
  it("delivers the signed completion of a prediction once it completes", async () => {
    const got: { headers: IncomingHttpHeaders; body: string }[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString("utf8")));
      req.on("end", () => {
        got.push({ headers: req.headers, body });
        res.writeHead(200).end("ok");
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const { id: accountId, key } = await t.account("internal");
      const secret = (await rotateWebhookSecret(
        t.ctx.db,
        new WebhookSecretBox(t.ctx.callbackSecret),
        accountId,
      ))!;
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/done`;
      const form = splitForm({ callback_url: url });
      const res = await t.app.inject({
        method: "POST",
        url: "/v1/predictions",
        headers: { ...form.headers, "x-api-key": key },
        payload: form.payload,
      });
      expect(res.statusCode).toBe(202);
      const id = res.json<{ prediction_id: string }>().prediction_id;
      expect(await t.ctx.webhooks.runOnce()).toBe(0); // not due before the job ends
      await completeJob(t, "prediction", id, validationArtifacts());
      expect(await t.ctx.webhooks.runOnce()).toBe(1);
      expect(await t.ctx.webhooks.runOnce()).toBe(0); // delivered once
      expect(got).toHaveLength(1);
      const ts = Number(got[0]!.headers["x-causeway-timestamp"]);
      expect(got[0]!.headers["x-causeway-signature"]).toBe(signWebhook(secret, ts, got[0]!.body));
      expect(JSON.parse(got[0]!.body)).toMatchObject({
        type: "prediction.completed",
        event_id: got[0]!.headers["x-causeway-event-id"],
        data: { prediction_id: id, status: "completed", error_code: null },
      });
      expect((await deliveryOf(t.ctx.db, id))!.delivered_at).not.toBeNull();
    } finally {
      server.close();
    }
  });
});
