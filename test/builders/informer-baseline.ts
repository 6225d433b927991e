/**
 * The baseline of the operator's scale run: nothing but client-node informers on the three kinds
 * the operator watches (Predictions, Jobs, Pods of one namespace), counting events. What the
 * operator costs beyond this (memory, API requests) is its own.
 *
 * Run: KUBECONFIG=... NAMESPACE=... node test/builders/informer-baseline.ts
 * On SIGTERM it prints {"events": N} and exits.
 */
import {
  BatchV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  makeInformer,
  type KubernetesListObject,
  type KubernetesObject,
} from "@kubernetes/client-node";
import { GROUP, RESOURCES, VERSION } from "@causeway/contract";

const namespace = process.env.NAMESPACE ?? "default";
const kc = new KubeConfig();
kc.loadFromDefault();
const custom = kc.makeApiClient(CustomObjectsApi);
const batch = kc.makeApiClient(BatchV1Api);
const core = kc.makeApiClient(CoreV1Api);
const plural = RESOURCES.prediction.plural;

const informers = [
  makeInformer(
    kc,
    `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${plural}`,
    async () =>
      (await custom.listNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace,
        plural,
      })) as KubernetesListObject<KubernetesObject>,
  ),
  makeInformer(kc, `/apis/batch/v1/namespaces/${namespace}/jobs`, () =>
    batch.listNamespacedJob({ namespace }),
  ),
  makeInformer(kc, `/api/v1/namespaces/${namespace}/pods`, () => core.listNamespacedPod({ namespace })),
];
let events = 0;
for (const informer of informers) {
  for (const verb of ["add", "update", "delete"] as const) informer.on(verb, () => (events += 1));
  // A broken watch restarts, as the operator's do.
  informer.on("error", () => setTimeout(() => void informer.start(), 1_000));
  await informer.start();
}
process.on("SIGTERM", () => {
  process.stdout.write(`${JSON.stringify({ events })}\n`);
  process.exit(0);
});
setInterval(() => undefined, 1 << 30);
