/**
 * Per-account webhook signing secrets. The secret is shown once (admin CLI) and must be usable
 * by the API to sign, so a hash would not do: it is sealed with AES-256-GCM under a key derived
 * (HKDF) from the server secret, the same construction as the download tokens.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import type { Queryable } from "../db/database.ts";
import { sealedWebhookSecret, storeSealedWebhookSecret } from "../db/webhook-secrets.ts";

export class WebhookSecretBox {
  private readonly key: Buffer;

  constructor(serverSecret: string) {
    this.key = Buffer.from(hkdfSync("sha256", serverSecret, "causeway-webhook-secret", "v1", 32));
  }

  seal(secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const body = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
  }

  /** The secret; throws when the sealed value was altered or sealed under another server secret. */
  open(sealed: string): string {
    const raw = Buffer.from(sealed, "base64url");
    const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
  }
}

/** Creates or replaces the account's secret; returns it (to be shown once). Null: no such account. */
export async function rotateWebhookSecret(
  db: Queryable,
  box: WebhookSecretBox,
  accountId: string,
): Promise<string | null> {
  const secret = `whsec_${randomBytes(32).toString("base64url")}`;
  return (await storeSealedWebhookSecret(db, accountId, box.seal(secret))) ? secret : null;
}

export async function webhookSecret(
  db: Queryable,
  box: WebhookSecretBox,
  accountId: string,
): Promise<string | null> {
  const sealed = await sealedWebhookSecret(db, accountId);
  return sealed === null ? null : box.open(sealed);
}
