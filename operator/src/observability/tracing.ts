/**
 * The operator's part of a prediction's trace: a reconcile span continuing the trace the API
 * wrote into the resource's `causeway.io/traceparent` annotation, and the runner Job's
 * TRACEPARENT pointing at the span that created the Job, so the runner's spans hang under it.
 * Without a tracer provider the Job keeps the annotation's context (copied by buildJob).
 */
import type { Context } from "@opentelemetry/api";
import type { V1EnvVar, V1Job } from "@kubernetes/client-node";
import { ANNOTATIONS } from "@causeway/contract";
import { contextFromTraceparent } from "@causeway/contract/telemetry";

/** The trace context a resource's reconcile continues (its annotations), else the active one. */
export function resourceTraceContext(resource: {
  metadata?: { annotations?: Record<string, string> | undefined };
}): Context {
  const annotations = resource.metadata?.annotations ?? {};
  return contextFromTraceparent(annotations[ANNOTATIONS.traceparent], annotations[ANNOTATIONS.tracestate]);
}

/**
 * A copy of `job` whose containers get TRACEPARENT/TRACESTATE of `carrier`; the job itself
 * when the carrier is empty (tracing off and nothing to continue).
 */
export function withTraceEnv(job: V1Job, carrier: { traceparent?: string; tracestate?: string }): V1Job {
  if (!carrier.traceparent) return job;
  const copy = structuredClone(job);
  const set = (env: V1EnvVar[] | undefined): V1EnvVar[] => {
    const out = (env ?? []).filter((e) => e.name !== "TRACEPARENT" && e.name !== "TRACESTATE");
    out.push({ name: "TRACEPARENT", value: carrier.traceparent });
    if (carrier.tracestate) out.push({ name: "TRACESTATE", value: carrier.tracestate });
    return out;
  };
  for (const c of copy.spec?.template.spec?.containers ?? []) c.env = set(c.env);
  return copy;
}
