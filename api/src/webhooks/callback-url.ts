/**
 * The optional `callback_url` of a submission, checked before anything is stored: an absolute
 * http(s) URL without credentials, of an account that has a webhook secret (the body is signed
 * with it), whose host resolves to allowed addresses only (address-guard.ts). Any problem is a
 * 422 on `body.callback_url` with a message that says what to fix.
 */
import { randomUUID } from "node:crypto";
import type { JobKind } from "@causeway/contract";
import type { AppContext } from "../context.ts";
import type { Queryable } from "../db/database.ts";
import { invalid } from "../errors.ts";
import { WebhookAddressRefused, checkWebhookUrl } from "./address-guard.ts";
import { recordWebhook } from "../db/webhook-deliveries.ts";
import { hasWebhookSecret } from "../db/webhook-secrets.ts";

const MAX_URL_LENGTH = 2048;

const refuse = (msg: string) => invalid(["body", "callback_url"], msg, "value_error");

/** The checked URL, or null when none was given. */
export async function checkCallbackUrl(
  ctx: AppContext,
  accountId: string,
  raw: string | null | undefined,
): Promise<string | null> {
  if (raw === undefined || raw === null || raw.trim() === "") return null;
  if (raw.length > MAX_URL_LENGTH) throw refuse(`callback_url must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw refuse("callback_url must be an absolute http or https URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw refuse("callback_url must be an absolute http or https URL");
  if (url.username !== "" || url.password !== "") throw refuse("callback_url must not contain credentials");
  if (!(await hasWebhookSecret(ctx.db, accountId)))
    throw refuse(
      "this account has no webhook secret to sign callbacks with; an administrator creates one with `admin webhooks secret --account ID`",
    );
  try {
    await checkWebhookUrl(ctx.config.webhooks, url);
  } catch (err) {
    if (err instanceof WebhookAddressRefused) throw refuse(err.message);
    throw err;
  }
  return url.toString();
}

/** Records the job's webhook in the outbox (before the job's row: a failure leaves no job without it). */
export async function subscribeWebhook(
  db: Queryable,
  w: { jobId: string; kind: JobKind; accountId: string; url: string; now: Date },
): Promise<void> {
  await recordWebhook(db, { ...w, eventId: randomUUID() });
}
