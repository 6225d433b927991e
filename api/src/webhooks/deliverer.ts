/**
 * Delivers completion webhooks from the outbox: polls for due deliveries, POSTs a signed JSON
 * body to the job's callback_url and retries failures with exponential backoff until the
 * configured number of attempts. Signature: `X-Causeway-Signature: sha256=<hex>`, the HMAC-SHA256
 * of `<X-Causeway-Timestamp>.<raw body>` under the account's webhook secret; `X-Causeway-Event-Id`
 * is the same on every attempt, so receivers can drop duplicates. Redirects are not followed
 * (a 3xx is a failed attempt) and every connection goes through the SSRF address guard.
 */
import { createHmac } from "node:crypto";
import http from "node:http";
import https from "node:https";
import type { FastifyBaseLogger } from "fastify";
import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import { isIP } from "node:net";
import { checkAddress, guardedLookup, type WebhookPolicy } from "./address-guard.ts";
import { claimDue, markDelivered, markFailed, type DueDelivery } from "../db/webhook-deliveries.ts";
import { webhookSecret, type WebhookSecretBox } from "./secrets.ts";

const TIMEOUT_MS = 10_000;
const MAX_DELAY_MS = 60 * 60 * 1000;
const BATCH = 20;

export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/** The JSON body of a delivery. */
export function webhookBody(d: DueDelivery): string {
  const idField = d.job_kind === "prediction" ? "prediction_id" : "causal_analysis_id";
  return JSON.stringify({
    event_id: d.event_id,
    type: `${d.job_kind}.${d.status}`,
    created_at: (d.completed_at ?? new Date()).toISOString(),
    data: { [idField]: d.job_id, status: d.status, error_code: d.error_code, error_message: d.error_message },
  });
}

export interface DelivererDeps {
  db: Database;
  box: WebhookSecretBox;
  config: Config["webhooks"];
  now: () => Date;
  log: FastifyBaseLogger;
}

export class WebhookDeliverer {
  private readonly deps: DelivererDeps;
  private readonly policy: WebhookPolicy;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | null = null;

  constructor(deps: DelivererDeps) {
    this.deps = deps;
    this.policy = { allowPrivate: deps.config.allowPrivate, allowHosts: deps.config.allowHosts };
  }

  start(): void {
    this.timer = setInterval(() => {
      this.runOnce().catch((err: unknown) => this.deps.log.warn({ err }, "webhook delivery round failed"));
    }, this.deps.config.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => 0);
  }

  /** One round: delivers every due webhook once. Returns how many were attempted. */
  runOnce(): Promise<number> {
    // Rounds never overlap within a process; across replicas the claim's lease keeps them apart.
    this.running ??= this.round().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async round(): Promise<number> {
    const { db, now } = this.deps;
    const due = await claimDue(db, now(), TIMEOUT_MS * 3, BATCH);
    await Promise.all(due.map((d) => this.attempt(d)));
    return due.length;
  }

  private async attempt(d: DueDelivery): Promise<void> {
    const { db, now, log, config } = this.deps;
    let error: string | null;
    try {
      const secret = await webhookSecret(db, this.deps.box, d.account_id);
      error = secret ? await this.post(d, secret) : "the account has no webhook secret";
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    if (error === null) {
      await markDelivered(db, d.job_id, now());
      return;
    }
    const failures = d.attempts + 1;
    const retryAt =
      failures >= config.maxAttempts
        ? null
        : new Date(now().getTime() + Math.min(config.backoffMs * 2 ** (failures - 1), MAX_DELAY_MS));
    await markFailed(db, d.job_id, error, retryAt, now());
    log.warn(
      { job_id: d.job_id, attempt: failures, error, gave_up: retryAt === null },
      "webhook delivery failed",
    );
  }

  /** One POST; null when the receiver answered 2xx, else what went wrong. */
  private post(d: DueDelivery, secret: string): Promise<string | null> {
    const body = webhookBody(d);
    const timestamp = Math.floor(this.deps.now().getTime() / 1000);
    const url = new URL(d.url);
    const client = url.protocol === "https:" ? https : http;
    // An address literal is connected to without a lookup: checked here instead.
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (isIP(host)) checkAddress(this.policy, host, host);
    return new Promise((resolve) => {
      const req = client.request(
        url,
        {
          method: "POST",
          lookup: guardedLookup(this.policy),
          timeout: TIMEOUT_MS,
          headers: {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
            "user-agent": "causeway-webhooks/1",
            "x-causeway-event-id": d.event_id,
            "x-causeway-timestamp": String(timestamp),
            "x-causeway-signature": signWebhook(secret, timestamp, body),
          },
        },
        (res) => {
          res.resume();
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve(null);
          else if (status >= 300 && status < 400) resolve(`redirect ${status} not followed`);
          else resolve(`receiver answered ${status}`);
        },
      );
      req.on("timeout", () => req.destroy(new Error("timed out")));
      req.on("error", (err) => resolve(err.message));
      req.end(body);
    });
  }
}
