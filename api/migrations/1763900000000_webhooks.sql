-- Up Migration

-- One signing secret per account, created or rotated by `admin webhooks secret`. The API needs the
-- secret itself to sign, so it is stored sealed (AES-256-GCM under a key derived from the server
-- secret), never in the clear.
CREATE TABLE webhook_secrets (
  account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  secret_sealed text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The outbox: one completion webhook per job that asked for one (callback_url), recorded at
-- submission. It becomes due when its job reaches a terminal state (read from the job's own
-- table, so nothing is lost between a transition and a delivery) and is retried with backoff
-- until delivered or out of attempts. event_id is the same on every attempt.
CREATE TABLE webhook_deliveries (
  job_id uuid PRIMARY KEY,
  job_kind text NOT NULL CHECK (job_kind IN ('prediction', 'causal_analysis')),
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  url text NOT NULL,
  event_id uuid NOT NULL UNIQUE,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  gave_up_at timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
  WHERE delivered_at IS NULL AND gave_up_at IS NULL;

-- Down Migration
DROP TABLE webhook_deliveries;
DROP TABLE webhook_secrets;
