/**
 * The Helm chart against a real control plane: render it with the harness's helm, apply every
 * object with a server-side dry run, check the secure defaults and toggles, then install the
 * chart's ServiceAccounts and RBAC for real and run the operator as the chart's operator
 * ServiceAccount (the API side as the chart's API ServiceAccount) through one job.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import {
  KubernetesObjectApi,
  type KubeConfig,
  type KubernetesObject,
  type V1PodSpec,
} from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";
import { loadKubeConfig } from "../harness/kube/service-account.ts";
import {
  OperatorCluster,
  behave,
  chartRules,
  createPrediction,
  jobsOf,
  REPO,
  testPrediction,
  waitForPhase,
} from "../builders/operator-cluster.ts";

const run = promisify(execFile);
const helm = inject("helmPath");
const namespace = `op-chart-${randomUUID().slice(0, 8)}`;
const release = "rel";
let cluster: OperatorCluster;
let admin: KubeConfig;

interface Obj extends KubernetesObject {
  spec?: Record<string, unknown>;
  rules?: unknown;
}

async function render(...sets: string[]): Promise<Obj[]> {
  const args = [
    "template",
    release,
    join(REPO, "charts", "causeway"),
    "-n",
    namespace,
    ...sets.flatMap((s) => ["--set", s]),
  ];
  const { stdout } = await run(helm ?? "helm", args, { maxBuffer: 16 * 1024 * 1024 });
  return parseAllDocuments(stdout)
    .map((d) => d.toJSON() as Obj | null)
    .filter((d): d is Obj => d !== null);
}

function podSpecs(objs: Obj[]): { name: string; spec: V1PodSpec }[] {
  return objs
    .filter((o) => o.kind === "Deployment" || o.kind === "Job")
    .map((o) => ({
      name: `${o.kind}/${o.metadata?.name}`,
      spec: (o.spec?.template as { spec: V1PodSpec }).spec,
    }));
}

// The chart brings its own ServiceAccounts and RBAC (installed in the last test).
beforeAll(async () => {
  cluster = await OperatorCluster.start("operator-chart", namespace, { chartRbac: false });
  admin = cluster.admin;
});

afterAll(() => cluster?.teardown());

// A developer machine may lack helm (`bash test/harness/kube/build.sh` builds it); CI builds it
// in .ci/run, so there a missing helm is a failure, never a silent skip.
if (helm === undefined && process.env.CI) throw new Error("helm is missing: .ci/run should have built it");

describe.skipIf(helm === undefined)("helm chart", () => {
  it("lints", async () => {
    await run(helm ?? "helm", ["lint", join(REPO, "charts", "causeway")]);
  });

  it("every rendered object passes a server-side dry run", async () => {
    const objs = await render("api.ingress.enabled=true", "api.ingress.tls=causeway-tls");
    const api = KubernetesObjectApi.makeApiClient(admin);
    for (const obj of objs) {
      await expect(
        api.create(obj, undefined, "All"),
        `${obj.kind}/${obj.metadata?.name}`,
      ).resolves.toBeDefined();
    }
    expect(objs.map((o) => o.kind)).toEqual(
      expect.arrayContaining(["Deployment", "Service", "Ingress", "Role", "RoleBinding", "Job", "Secret"]),
    );
  });

  it("renders secure pods: non-root, read-only root, no capabilities, seccomp RuntimeDefault", async () => {
    for (const { name, spec } of podSpecs(await render())) {
      expect(spec.securityContext, name).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: "RuntimeDefault" },
      });
      for (const c of spec.containers) {
        expect(c.securityContext, name).toMatchObject({
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ["ALL"] },
        });
        expect(
          c.volumeMounts?.some((m) => m.mountPath === "/tmp"),
          name,
        ).toBe(true);
        // Secrets are referenced, never inlined.
        for (const e of c.env ?? [])
          expect(
            /^(DATABASE_URL|REDIS_URL|CAUSEWAY_CALLBACK_SECRET|AWS_ACCESS_KEY_ID|AWS_SECRET_ACCESS_KEY)$/.test(
              e.name,
            ) && e.value !== undefined,
            `${name} ${e.name}`,
          ).toBe(false);
      }
    }
  });

  it("uses the generated RBAC rules and runs migrations as a hook", async () => {
    const objs = await render();
    const roles = objs.filter((o) => o.kind === "Role");
    expect(roles.find((r) => r.metadata?.name === `${release}-causeway-operator`)?.rules).toEqual(
      chartRules("operator"),
    );
    expect(roles.find((r) => r.metadata?.name === `${release}-causeway-api`)?.rules).toEqual(
      chartRules("api"),
    );
    const migrate = objs.find((o) => o.kind === "Job");
    expect(migrate?.metadata?.annotations?.["helm.sh/hook"]).toBe("pre-install,pre-upgrade");
    expect((migrate?.spec?.template as { spec: V1PodSpec }).spec.containers[0]?.command).toEqual([
      "node",
      "api/src/admin/cli.ts",
      "migrate",
    ]);
  });

  it("carries the edge rate limit on the Ingress and switches to Recreate without leader election", async () => {
    const objs = await render("api.ingress.enabled=true", "operator.leaderElection.enabled=false");
    const ingress = objs.find((o) => o.kind === "Ingress");
    expect(ingress?.metadata?.annotations?.["nginx.ingress.kubernetes.io/limit-rpm"]).toBe("30");
    const op = objs.find(
      (o) => o.kind === "Deployment" && o.metadata?.name === `${release}-causeway-operator`,
    );
    expect(op?.spec?.strategy).toEqual({ type: "Recreate" });
    await expect(render("operator.leaderElection.enabled=false", "operator.replicaCount=2")).rejects.toThrow(
      /leaderElection/,
    );
    await expect(render("image.pullPolicy=Sometimes")).rejects.toThrow(/pullPolicy/);
  });

  it("runs a job with the operator as the chart's ServiceAccount and RBAC", async () => {
    const objs = await render();
    const api = KubernetesObjectApi.makeApiClient(admin);
    for (const obj of objs.filter((o) => ["ServiceAccount", "Role", "RoleBinding"].includes(o.kind ?? "")))
      await api.create(obj);
    const operatorAccess = await cluster.serviceAccount(`${release}-causeway-operator`);
    const apiAccess = loadKubeConfig(await cluster.serviceAccount(`${release}-causeway-api`));
    await cluster.startKubelet();
    await cluster.startOperator({
      kubeconfigPath: operatorAccess.kubeconfigPath,
      env: {
        RUNNER_SERVICE_ACCOUNT: `${release}-causeway-runner`,
        LEASE_NAME: `${release}-causeway-operator`,
      },
    });
    const r = testPrediction(namespace, behave(0));
    await createPrediction(apiAccess, r);
    await waitForPhase(admin, namespace, r.metadata.name ?? "", "Completed");
    const jobs = await jobsOf(admin, namespace, r.metadata.name ?? "");
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.spec?.template.spec?.serviceAccountName).toBe(`${release}-causeway-runner`);
  });
});
