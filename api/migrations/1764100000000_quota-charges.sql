-- Up Migration

-- One row per quota unit a submission holds before its prediction row exists. The unit is taken
-- and the row written in one statement; the row goes away when the prediction row is written (in
-- the same transaction) or when the unit is refunded. A row left by a process that died in
-- between is a unit charged for a prediction that never existed: the next embedded start refunds it.
CREATE TABLE quota_charges (
  submission_id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  charged_at timestamptz NOT NULL
);

-- Down Migration

DROP TABLE quota_charges;
