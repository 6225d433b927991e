-- Up Migration

-- Idempotency-Key records of the submission routes, one per (account, key). A row is claimed by the
-- first request (response_status NULL while it runs) and holds that request's response once it
-- succeeded; a failed first request deletes its row, so a corrected retry can proceed. The
-- fingerprint is a SHA-256 of the method, the path and the body as received (multipart: the parts).
CREATE TABLE idempotency_keys (
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  idempotency_key text NOT NULL,
  -- Who holds the claim: only the request that claimed the row may record or release it.
  claim_token uuid NOT NULL,
  fingerprint text,
  response_status integer,
  response_headers jsonb,
  response_body jsonb,
  claimed_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, idempotency_key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

-- Down Migration
DROP TABLE idempotency_keys;
