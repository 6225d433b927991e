/** The Idempotency-Key request header of the submission routes (IETF httpapi idempotency-key draft). */
import { z } from "zod";

/** A structured-field string (quoted, as the draft writes it) or, leniently, its bare content. */
export const IdempotencyKeyValue = z
  .string()
  .transform((raw) => {
    const v = raw.trim();
    return v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v;
  })
  .pipe(
    z
      .string()
      .min(1, "the Idempotency-Key must not be empty")
      .max(255, "the Idempotency-Key must be at most 255 characters")
      .regex(/^[\x21-\x7e]+$/, "the Idempotency-Key must be printable ASCII without spaces"),
  );

export const IdempotencyHeaders = z.looseObject({
  "idempotency-key": IdempotencyKeyValue.optional().meta({
    description:
      "Makes the submission safe to retry. A retry with the same key and the same request returns the " +
      "first response (202, with `Idempotent-Replayed: true`) without creating another job or using " +
      "quota; the same key with a different request is a 422 (`idempotency_key_mismatch`); a retry " +
      "while the first request is still processed is a 409 (`idempotency_key_in_use`). Keys are " +
      "scoped to the account and expire after 24 hours; failed requests do not keep their key.",
  }),
});
