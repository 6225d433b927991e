/** Per-account webhook secrets, stored sealed (webhooks/secrets.ts seals and opens them). */
import type { Queryable } from "./database.ts";

/** Creates or replaces the account's sealed secret; false when there is no such account. */
export async function storeSealedWebhookSecret(
  db: Queryable,
  accountId: string,
  sealed: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO webhook_secrets (account_id, secret_sealed)
     SELECT id, $2 FROM accounts WHERE id = $1
     ON CONFLICT (account_id) DO UPDATE SET secret_sealed = EXCLUDED.secret_sealed, created_at = now()`,
    [accountId, sealed],
  );
  return rowCount === 1;
}

export async function hasWebhookSecret(db: Queryable, accountId: string): Promise<boolean> {
  const { rows } = await db.query(`SELECT 1 FROM webhook_secrets WHERE account_id = $1`, [accountId]);
  return rows.length > 0;
}

export async function sealedWebhookSecret(db: Queryable, accountId: string): Promise<string | null> {
  const { rows } = await db.query<{ secret_sealed: string }>(
    `SELECT secret_sealed FROM webhook_secrets WHERE account_id = $1`,
    [accountId],
  );
  return rows[0]?.secret_sealed ?? null;
}
