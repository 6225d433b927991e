// Proves the cluster harness: a real API server and Job controller, the kubelet double running Pods
// as local processes, and RBAC enforced for ServiceAccounts.
import { BatchV1Api, CoreV1Api, RbacAuthorizationV1Api, type V1Job } from "@kubernetes/client-node";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadKubeConfig, serviceAccountKubeconfig } from "../harness/kube/service-account.ts";
import {
  startKubeletDouble,
  TERMINATION_REASON_ANNOTATION,
  type KubeletDouble,
} from "../harness/kubelet-double.ts";
import { waitFor } from "../harness/proc.ts";
import { injectKube } from "../harness/vitest.ts";

const kube = injectKube();
const kc = loadKubeConfig(kube);
const core = kc.makeApiClient(CoreV1Api);
const batch = kc.makeApiClient(BatchV1Api);
const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
const namespace = `cp-${randomBytes(3).toString("hex")}`;

function job(name: string, script: string, annotations: Record<string, string> = {}): V1Job {
  return {
    metadata: { name, namespace },
    spec: {
      backoffLimit: 0,
      template: {
        metadata: { annotations },
        spec: {
          restartPolicy: "Never",
          containers: [
            {
              name: "main",
              image: "causeway-runner:test",
              command: ["node", "-e", script],
              env: [
                { name: "GREETING", valueFrom: { secretKeyRef: { name: "job-secret", key: "greeting" } } },
                { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
              ],
            },
          ],
        },
      },
    },
  };
}

/** Polls the Job until it has a True condition of one of `types`; returns that condition's type and reason. */
function waitForJob(name: string, types: readonly string[]): Promise<{ type: string; reason: string }> {
  return waitFor(
    `job ${name} to reach ${types.join("/")}`,
    async () => {
      const current = await batch.readNamespacedJob({ name, namespace });
      const done = current.status?.conditions?.find((c) => types.includes(c.type) && c.status === "True");
      return done ? { type: done.type, reason: done.reason ?? "" } : undefined;
    },
    { timeoutMs: 90_000, intervalMs: 250 },
  );
}

async function podOf(jobName: string) {
  const pods = await core.listNamespacedPod({ namespace, labelSelector: `job-name=${jobName}` });
  expect(pods.items).toHaveLength(1);
  const pod = pods.items[0];
  if (!pod) throw new Error("no pod");
  return pod;
}

describe(`control plane ${kube.version}`, () => {
  let kubelet: KubeletDouble;

  beforeAll(async () => {
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: "job-secret" }, stringData: { greeting: "hello" } },
    });
    kubelet = await startKubeletDouble({ kubeconfigPath: kube.kubeconfigPath, namespace });
  });

  afterAll(async () => {
    await kubelet?.stop();
    await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  });

  it("completes a Job: the Job controller creates a Pod and the kubelet double runs it", async () => {
    // Exits 0 only if the env came through (Secret via secretKeyRef, downward API via fieldRef).
    await batch.createNamespacedJob({
      namespace,
      body: job(
        "ok",
        "process.exit(process.env.GREETING === 'hello' && process.env.POD_NAME?.startsWith('ok-') ? 0 : 3)",
      ),
    });
    expect(await waitForJob("ok", ["Complete", "Failed"])).toMatchObject({ type: "Complete" });
    const pod = await podOf("ok");
    expect(pod.status?.phase).toBe("Succeeded");
    expect(pod.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
      exitCode: 0,
      reason: "Completed",
    });
    expect((await batch.readNamespacedJob({ name: "ok", namespace })).status?.succeeded).toBe(1);
  });

  it("fails a Job whose Pod exits non-zero", async () => {
    await batch.createNamespacedJob({ namespace, body: job("bad", "process.exit(2)") });
    expect(await waitForJob("bad", ["Complete", "Failed"])).toEqual({
      type: "Failed",
      reason: "BackoffLimitExceeded",
    });
    const pod = await podOf("bad");
    expect(pod.status?.phase).toBe("Failed");
    expect(pod.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
      exitCode: 2,
      reason: "Error",
    });
  });

  it("reports OOMKilled when the Pod asks for it", async () => {
    await batch.createNamespacedJob({
      namespace,
      body: job("oom", "process.exit(137)", { [TERMINATION_REASON_ANNOTATION]: "OOMKilled" }),
    });
    expect(await waitForJob("oom", ["Complete", "Failed"])).toMatchObject({ type: "Failed" });
    const pod = await podOf("oom");
    expect(pod.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
      exitCode: 137,
      reason: "OOMKilled",
    });
  });

  it("enforces RBAC: a ServiceAccount without rights cannot create Jobs until a Role allows it", async () => {
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: "limited" } } });
    const sa = await serviceAccountKubeconfig(kube, { namespace, name: "limited" });
    expect(sa.username).toBe(`system:serviceaccount:${namespace}:limited`);
    const asSa = loadKubeConfig(sa).makeApiClient(BatchV1Api);
    const attempt = () => asSa.createNamespacedJob({ namespace, body: job("by-sa", "process.exit(0)") });
    await expect(attempt()).rejects.toMatchObject({ code: 403 });

    await rbac.createNamespacedRole({
      namespace,
      body: {
        metadata: { name: "job-creator" },
        rules: [{ apiGroups: ["batch"], resources: ["jobs"], verbs: ["create", "get"] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: "job-creator" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "job-creator" },
        subjects: [{ kind: "ServiceAccount", name: "limited", namespace }],
      },
    });
    // The authorizer's RBAC cache follows the binding within moments.
    await waitFor(
      "the Role to let the ServiceAccount create the Job",
      async () => {
        await attempt();
        return true;
      },
      { timeoutMs: 10_000, intervalMs: 200 },
    );
    expect(await waitForJob("by-sa", ["Complete", "Failed"])).toMatchObject({ type: "Complete" });
  });

  it("enforces owner-reference permissions as OpenShift does: blockOwnerDeletion needs the owner's finalizers", async () => {
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: "owner-sa" } } });
    const owner = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "owner" } } });
    const grant = async (name: string, rule: { resources: string[]; verbs: string[] }) => {
      await rbac.createNamespacedRole({
        namespace,
        body: {
          metadata: { name },
          rules: [{ apiGroups: rule.resources[0] === "jobs" ? ["batch"] : [""], ...rule }],
        },
      });
      await rbac.createNamespacedRoleBinding({
        namespace,
        body: {
          metadata: { name },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
          subjects: [{ kind: "ServiceAccount", name: "owner-sa", namespace }],
        },
      });
    };
    await grant("owner-sa-jobs", { resources: ["jobs"], verbs: ["create"] });
    const asSa = loadKubeConfig(
      await serviceAccountKubeconfig(kube, { namespace, name: "owner-sa" }),
    ).makeApiClient(BatchV1Api);
    const owned = (name: string): V1Job => {
      const body = job(name, "process.exit(0)");
      body.metadata!.ownerReferences = [
        {
          apiVersion: "v1",
          kind: "ConfigMap",
          name: "owner",
          uid: owner.metadata!.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ];
      return body;
    };
    // May create Jobs, not update the owner's finalizers: refused by the admission plugin.
    let refusal: unknown;
    await waitFor(
      "the Job Role to take effect (then the admission plugin refuses)",
      async () => {
        try {
          await asSa.createNamespacedJob({ namespace, body: owned("owned-1") });
          return "created";
        } catch (err) {
          refusal = err;
          return String((err as { body?: unknown }).body ?? err).includes("blockOwnerDeletion")
            ? "refused"
            : undefined;
        }
      },
      { timeoutMs: 10_000, intervalMs: 200 },
    );
    expect(String((refusal as { body?: unknown }).body)).toMatch(/cannot set blockOwnerDeletion/);

    await grant("owner-sa-finalizers", { resources: ["configmaps/finalizers"], verbs: ["update"] });
    await waitFor(
      "the finalizers Role to let the ServiceAccount set blockOwnerDeletion",
      async () => {
        await asSa.createNamespacedJob({ namespace, body: owned("owned-2") });
        return true;
      },
      { timeoutMs: 10_000, intervalMs: 200 },
    );
  });
});
