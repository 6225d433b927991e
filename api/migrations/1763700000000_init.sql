-- Up Migration

-- Accounts own keys, predictions and causal analyses. quota_total NULL means "the configured
-- default" (CAUSEWAY_DEFAULT_QUOTA), so changing the default reaches every account without an override.
CREATE TABLE accounts (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  tier text NOT NULL CHECK (tier IN ('external', 'internal')),
  quota_total integer CHECK (quota_total IS NULL OR quota_total >= 0),
  quota_consumed integer NOT NULL DEFAULT 0 CHECK (quota_consumed >= 0),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Only the SHA-256 of a key is stored; lookups go through the unique index on it.
CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  key_hash bytea NOT NULL UNIQUE,
  display_prefix text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX api_keys_account ON api_keys (account_id);

CREATE TABLE models (
  version text PRIMARY KEY,
  manifest jsonb NOT NULL,
  is_default boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX models_single_default ON models (is_default) WHERE is_default;

CREATE TABLE predictions (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
  job_type text NOT NULL CHECK (job_type IN ('target_id', 'target_validation')),
  target text,
  label text,
  model_version text NOT NULL,
  spec jsonb NOT NULL,
  input_prefix text NOT NULL,
  processing_step text,
  progress_pct integer,
  error_code text,
  error_message text,
  error_detail text,
  billable boolean,
  -- true once this prediction's quota unit was given back: guards against refunding twice.
  quota_refunded boolean NOT NULL DEFAULT false,
  result_files jsonb,
  result_sets jsonb,
  dataset_summary jsonb,
  last_attempt text,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  completed_at timestamptz,
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);
-- Keyset pagination per account on (created_at, id), newest first.
CREATE INDEX predictions_account_page ON predictions (account_id, created_at DESC, id DESC);
CREATE INDEX predictions_unfinished ON predictions (heartbeat_at) WHERE status IN ('pending', 'processing');

CREATE TABLE causal_analyses (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  prediction_id uuid NOT NULL REFERENCES predictions (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
  target text NOT NULL,
  spec jsonb NOT NULL,
  processing_step text,
  progress_pct integer,
  error_code text,
  error_message text,
  error_detail text,
  billable boolean,
  result_files jsonb,
  last_attempt text,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  completed_at timestamptz,
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX causal_analyses_prediction ON causal_analyses (prediction_id, created_at, id);
CREATE INDEX causal_analyses_unfinished ON causal_analyses (heartbeat_at) WHERE status IN ('pending', 'processing');

-- Down Migration
DROP TABLE causal_analyses;
DROP TABLE predictions;
DROP TABLE models;
DROP TABLE api_keys;
DROP TABLE accounts;
