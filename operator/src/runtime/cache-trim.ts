/**
 * What the informer caches keep of an object (controller-runtime's TransformFunc): the fields
 * the decisions read. At a thousand resources the caches hold a thousand Jobs and pods, and
 * server-side-apply bookkeeping and pod templates are most of each. The informer applies these
 * in place as an object enters its cache (informer.ts `trim`).
 */
import type { KubernetesObject, V1Job, V1Pod } from "@kubernetes/client-node";

/** Every cached object: the server-side-apply bookkeeping is read by no decision. */
export function trimMeta(obj: KubernetesObject): void {
  if (obj.metadata) delete obj.metadata.managedFields;
}

/**
 * A cached Job keeps what the decisions read (metadata, `activeDeadlineSeconds`, status): its
 * pod template (the runner's spec as env, volumes, security context) is the bulk of it and is
 * only ever built, never read back.
 */
export function trimJob(job: V1Job): void {
  trimMeta(job);
  if (job.spec) job.spec.template = {};
}

/** A cached pod keeps its metadata, status and each container's name and resources (the OOM message's limit). */
export function trimPod(pod: V1Pod): void {
  trimMeta(pod);
  if (pod.spec)
    pod.spec = { containers: pod.spec.containers.map(({ name, resources }) => ({ name, resources })) };
}
