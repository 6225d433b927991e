// `helm install` of the chart on a real node, with the images of `npm run images`: the migration hook
// Job runs the API image against PostgreSQL, the API's Pods start from the chart's Deployment (its
// security context, read-only root filesystem, Secrets) until the kubelet's readiness probe passes,
// and the operator's Pod, from the operator image, reaches the API server through the `kubernetes`
// Service (kube-proxy on the node) with the chart's ServiceAccount, becomes Ready, and turns a
// Prediction into its runner Job.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { promisify } from "node:util";
import type { KubeConfig, V1Pod } from "@kubernetes/client-node";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { clients, createPrediction, REPO, testPrediction } from "../builders/operator-cluster.ts";
import { waitFor } from "../harness/proc.ts";
import { ensureImages, type BuiltImage, type ImageName } from "../harness/images.ts";
import { startNode, type RealNode } from "../harness/kube/node.ts";
import { loadKubeConfig } from "../harness/kube/service-account.ts";
import { startPostgres, type PostgresServer } from "../harness/postgres.ts";
import { startRedis, type RedisServer } from "../harness/redis.ts";
import { startS3, type S3Server } from "../harness/s3.ts";
import { injectKube } from "../harness/vitest.ts";

const run = promisify(execFile);
const helm = inject("helmPath");
const kube = injectKube();
const namespace = `node-chart-${randomBytes(3).toString("hex")}`;
const release = "rel";
let admin: KubeConfig;
let node: RealNode | undefined;
let images: Map<ImageName, BuiltImage>;
const services: Array<PostgresServer | RedisServer | S3Server> = [];
let s3: S3Server;
let database: PostgresServer;

function image(name: ImageName): BuiltImage {
  const found = images.get(name);
  if (!found) throw new Error(`image ${name} was not built`);
  return found;
}

beforeAll(async () => {
  if (!helm) throw new Error("helm is missing: bash test/harness/kube/build.sh builds it");
  admin = loadKubeConfig(kube);
  images = await ensureImages();
  await clients(admin).core.createNamespace({ body: { metadata: { name: namespace } } });
  node = await startNode(kube, { namespaces: [namespace], serviceProxy: true });
  for (const name of ["api", "operator"] as const) {
    await node.importImage(image(name).tar, `docker.io/${image(name).reference.split(":")[0] ?? ""}`);
  }
  // The pods reach the host only at the bridge address: the services listen there.
  const hostIp = node.hostIp;
  const [postgres, redis] = await Promise.all([
    startPostgres("causeway_chart", { address: hostIp }),
    startRedis({ address: hostIp }),
  ]);
  database = postgres;
  s3 = await startS3("causeway-chart", { address: hostIp });
  services.push(postgres, redis, s3);
  const { core } = clients(admin);
  const secret = async (name: string, data: Record<string, string>): Promise<void> => {
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name, namespace }, stringData: data },
    });
  };
  await secret("causeway-database", { url: postgres.url });
  await secret("causeway-redis", { url: redis.url });
  await secret("causeway-s3", {
    AWS_ACCESS_KEY_ID: s3.config.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.config.secretAccessKey,
  });
});

afterAll(async () => {
  if (helm) {
    await run(helm, ["uninstall", release, "-n", namespace, "--kubeconfig", kube.kubeconfigPath]).catch(
      () => undefined,
    );
  }
  await node?.stop();
  await Promise.allSettled(services.map((s) => s.stop()));
  await clients(admin)
    .core.deleteNamespace({ name: namespace })
    .catch(() => undefined);
});

/** The first Ready pod of one of the chart's components (its Deployment's pods). */
function readyPod(component: "api" | "operator"): Promise<V1Pod> {
  return waitFor(
    `a ${component} pod Ready`,
    async () => {
      const pods = await clients(admin).core.listNamespacedPod({
        namespace,
        labelSelector: `app.kubernetes.io/component=${component}`,
      });
      return pods.items.find((p: V1Pod) =>
        p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
      );
    },
    { timeoutMs: 240_000, intervalMs: 1_000 },
  );
}

describe("the chart on a real node", () => {
  it("helm install runs the migration hook and the API Pods become Ready from the API image", async () => {
    const tag = image("api").reference.split(":")[1] ?? "";
    const sets = {
      "image.registry": "docker.io",
      "image.tag": tag,
      "api.image.repository": "causeway/api",
      "operator.image.repository": "causeway/operator",
      "runner.image.repository": "causeway/runner",
      "api.replicaCount": "1",
      "s3.bucket": s3.config.bucket,
      "s3.endpoint": s3.config.endpoint,
      "s3.forcePathStyle": "true",
    };
    await run(
      helm ?? "helm",
      [
        "install",
        release,
        join(REPO, "charts", "causeway"),
        "-n",
        namespace,
        "--kubeconfig",
        kube.kubeconfigPath,
        "--timeout",
        "5m",
        ...Object.entries(sets).flatMap(([k, v]) => ["--set", `${k}=${v}`]),
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    const ready = await readyPod("api");
    const status = ready.status?.containerStatuses?.[0];
    expect(ready.spec?.nodeName).toBe(node?.name);
    expect(status?.image).toBe(`docker.io/${image("api").reference}`);
    expect(status?.restartCount).toBe(0);
    // The migration hook ran to completion before the install returned: the schema is there.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const applied = await client.query<{ n: string }>("SELECT count(*) AS n FROM pgmigrations");
      expect(Number(applied.rows[0]?.n)).toBeGreaterThan(0);
    } finally {
      await client.end();
    }
  });

  it("the operator Pod reaches the API server through the kubernetes Service, becomes Ready and creates runner Jobs", async () => {
    const { batch } = clients(admin);
    const ready = await readyPod("operator");
    const status = ready.status?.containerStatuses?.[0];
    expect(ready.spec?.nodeName).toBe(node?.name);
    expect(status?.image).toBe(`docker.io/${image("operator").reference}`);
    expect(status?.restartCount).toBe(0);

    const prediction = testPrediction(namespace, "v1");
    await createPrediction(admin, prediction);
    const job = await waitFor(
      "the operator Pod to create the runner Job",
      async () => {
        const jobs = await batch.listNamespacedJob({ namespace });
        return jobs.items.find((j) =>
          j.metadata?.ownerReferences?.some((o) => o.name === prediction.metadata.name),
        );
      },
      { timeoutMs: 120_000, intervalMs: 1_000 },
    );
    expect(job.spec?.template.spec?.containers[0]?.image).toContain("causeway/runner");
  });
});
