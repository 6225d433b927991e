-- Up Migration

-- What the runner noticed about a prediction that its user should know ({code, message} objects:
-- low residual degrees of freedom, unresolved genes, DEGs covering most of the universe, …), from
-- its final callback. NULL for predictions finished before warnings were reported.
ALTER TABLE predictions ADD COLUMN warnings jsonb;

-- Down Migration

ALTER TABLE predictions DROP COLUMN warnings;
