/** The one wording of an invalid spec, for the `InvalidSpec` condition and its Event. */
import type { z } from "zod";

/** Why `spec` does not parse as `schema` (every issue, `path: message`), or null when it does. */
export function specError<S extends z.ZodType>(
  schema: S,
  spec: unknown,
): { message: string } | { data: z.infer<S> } {
  const parsed = schema.safeParse(spec);
  if (parsed.success) return { data: parsed.data };
  return {
    message: parsed.error.issues.map((i) => `${i.path.join(".") || "spec"}: ${i.message}`).join("; "),
  };
}
