/**
 * metav1.Condition helpers after apimachinery's meta.SetStatusCondition: lastTransitionTime
 * moves only when the status flips; reason, message and observedGeneration are refreshed.
 */
import type { Condition } from "./resources.ts";

/** A condition without its timestamp: what reconcile decides. */
export type ConditionInput = Omit<Condition, "lastTransitionTime" | "observedGeneration">;

/** Returns a new list with `next` set; never mutates `conditions`. */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  next: ConditionInput,
  now: Date,
  observedGeneration: number | undefined,
): Condition[] {
  const list = (conditions ?? []).map((c) => ({ ...c }));
  const i = list.findIndex((c) => c.type === next.type);
  const prev = i >= 0 ? list[i] : undefined;
  const cond: Condition = {
    type: next.type,
    status: next.status,
    reason: next.reason,
    message: next.message,
    lastTransitionTime: prev && prev.status === next.status ? prev.lastTransitionTime : now.toISOString(),
    ...(observedGeneration === undefined ? {} : { observedGeneration }),
  };
  if (i >= 0) list[i] = cond;
  else list.push(cond);
  return list;
}

/** Removes a condition by type (a new list). */
export function removeCondition(conditions: readonly Condition[] | undefined, type: string): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type).map((c) => ({ ...c }));
}

/** The condition of a type, if present. */
export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** True when the condition of a type is present with status True. */
export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === "True";
}
