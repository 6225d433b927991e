// Runner Jobs on a real node: the operator's Jobs run as Pods of the runner image under kubelet,
// containerd and runc, so the kernel enforces the memory limit, the Job controller the deadline, and
// the kubelet pulls (or fails to pull) the image. The kubelet double (test/harness/kubelet-double.ts)
// stays for what a real node cannot show on demand: a pod evicted or preempted (DisruptionTarget), a
// pod that stays Pending/unschedulable, exact exit codes and timings of many runners at scale.
import type { KubeConfig, V1Pod } from "@kubernetes/client-node";
import { randomBytes } from "node:crypto";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  clients,
  createPrediction,
  operatorTestEnv,
  startOperator,
  testPrediction,
  waitForPhase,
  type OperatorProcess,
  type OperatorTestEnv,
} from "../builders/operator-cluster.ts";
import { freePort } from "../harness/ports.ts";
import { projectNode } from "../harness/repo.ts";
import { ensureImages, type BuiltImage } from "../harness/images.ts";
import { startNode, type RealNode } from "../harness/kube/node.ts";
import { GROUP, LABELS, RESOURCES, VERSION, type PredictionResource } from "@causeway/contract";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { inject } from "vitest";
import { serviceAccountKubeconfig } from "../harness/kube/service-account.ts";
import { startProcess, waitFor } from "../harness/proc.ts";
import { startS3 } from "../harness/s3.ts";
import { useIsolatedDatabase } from "../harness/vitest.ts";
import { DEFAULT_NETWORK, HGNC_DIR, KANG_DIR, REPO_ROOT } from "../shared-data.ts";

const exec = promisify(execFile);

const suffix = randomBytes(3).toString("hex");
const namespaces = {
  oom: `node-oom-${suffix}`,
  deadline: `node-dl-${suffix}`,
  pull: `node-pull-${suffix}`,
  api: `node-api-${suffix}`,
};
/** The callback secret startOperator gives the operator; the API must sign with the same one. */
const CALLBACK_SECRET = "cluster-test-server-secret-of-32-chars-or-more";
const db = useIsolatedDatabase("real_node_api");
const cleanups: Array<() => Promise<void>> = [];

let node: RealNode | undefined;
let runner: BuiltImage;
let blackHole: { server: Server; port: number } | undefined;
const envs = new Map<string, OperatorTestEnv>();
const operators: OperatorProcess[] = [];

/**
 * A callback endpoint that accepts connections and never answers: a runner reporting to it hangs
 * (its reporter retries for about two minutes) until something outside kills it.
 */
async function startBlackHole(host: string): Promise<{ server: Server; port: number }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
  });
  server.on("close", () => sockets.forEach((s) => s.destroy()));
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return { server, port };
}

function requireNode(): RealNode {
  if (!node) throw new Error("the node exists only once beforeAll has run");
  return node;
}

/** An operator for one namespace, as the chart's ServiceAccount, with runner settings of the case. */
async function operatorFor(namespace: string, env: Record<string, string>): Promise<OperatorProcess> {
  const testEnv = envs.get(namespace);
  if (!testEnv || !blackHole) throw new Error(`no test env for ${namespace}`);
  const op = startOperator(projectNode(), {
    kubeconfigPath: testEnv.sa.kubeconfigPath,
    namespace,
    port: await freePort(),
    logPath: join(testEnv.tmp.path, "operator.log"),
    env: {
      RUNNER_IMAGE: runner.reference,
      CAUSEWAY_CALLBACK_BASE_URL: `http://${requireNode().hostIp}:${blackHole.port}`,
      RUNNER_RESOURCES: JSON.stringify({
        requests: { cpu: "100m", memory: "32Mi" },
        limits: { memory: "1Gi" },
      }),
      ...env,
    },
  });
  operators.push(op);
  return op;
}

async function runnerPods(kc: KubeConfig, namespace: string, name: string): Promise<V1Pod[]> {
  const pods = await clients(kc).core.listNamespacedPod({
    namespace,
    labelSelector: `${LABELS.resource}=${name}`,
  });
  return pods.items;
}

beforeAll(async () => {
  const images = await ensureImages();
  const found = images.get("runner");
  if (!found) throw new Error("no runner image");
  runner = found;
  for (const namespace of Object.values(namespaces)) {
    envs.set(namespace, await operatorTestEnv(namespace, namespace));
  }
  const first = envs.values().next().value;
  if (!first) throw new Error("no namespace");
  node = await startNode(first.kube, { namespaces: Object.values(namespaces) });
  // Imported as docker.io/causeway/runner:<version>, the name a Pod's `causeway/runner:<version>` means.
  await node.importImage(runner.tar, `docker.io/${runner.reference.split(":")[0] ?? ""}`);
  blackHole = await startBlackHole(node.hostIp);
});

afterAll(async () => {
  await Promise.allSettled(operators.map((op) => op.kill("SIGTERM")));
  await Promise.allSettled(cleanups.map((c) => c()));
  await node?.stop();
  blackHole?.server.close();
  await Promise.allSettled([...envs.values()].map((e) => e.tmp.remove()));
});

describe("runner Jobs on a real kubelet", () => {
  it("a memory limit too small: the kernel OOM-kills the runner and the resource fails with out_of_memory", async () => {
    const namespace = namespaces.oom;
    const { admin } = envs.get(namespace) ?? {};
    if (!admin) throw new Error("no env");
    await operatorFor(namespace, {
      RUNNER_RESOURCES: JSON.stringify({
        requests: { cpu: "100m", memory: "32Mi" },
        limits: { memory: "40Mi" },
      }),
      // A heap limit above the container's, so the kernel and not V8 is what stops the runner.
      RUNNER_EXTRA_ENV: JSON.stringify([{ name: "NODE_OPTIONS", value: "--max-old-space-size=1024" }]),
    });
    const r = testPrediction(namespace, "v1");
    const name = r.metadata.name ?? "";
    await createPrediction(admin, r);
    const failed = await waitForPhase(admin, namespace, name, "Failed", 180_000);
    expect(failed.status?.failure).toMatchObject({ reason: "OOMKilled", errorCode: "out_of_memory" });
    const [pod] = await runnerPods(admin, namespace, name);
    const terminated = pod?.status?.containerStatuses?.[0]?.state?.terminated;
    expect(terminated).toMatchObject({ exitCode: 137, reason: "OOMKilled" });
    expect(pod?.spec?.nodeName).toBe(requireNode().name);
  });

  it("a runner that outlives the Job's deadline is killed and the resource fails with deadline_exceeded", async () => {
    const namespace = namespaces.deadline;
    const { admin } = envs.get(namespace) ?? {};
    if (!admin) throw new Error("no env");
    await operatorFor(namespace, { RUNNER_ACTIVE_DEADLINE_SECONDS: "15" });
    const r = testPrediction(namespace, "v1");
    const name = r.metadata.name ?? "";
    await createPrediction(admin, r);
    await waitForPhase(admin, namespace, name, "Processing", 120_000);
    // The runner really runs in the runner image before the deadline stops it.
    const [pod] = await runnerPods(admin, namespace, name);
    const status = pod?.status?.containerStatuses?.[0];
    expect(status?.image).toBe(`docker.io/${runner.reference}`);
    const failed = await waitForPhase(admin, namespace, name, "Failed", 180_000);
    expect(failed.status?.failure).toMatchObject({
      reason: "DeadlineExceeded",
      errorCode: "deadline_exceeded",
    });
  });

  it("an image tag that does not exist: the pull fails and the resource fails with ImagePullFailed", async () => {
    const namespace = namespaces.pull;
    const { admin } = envs.get(namespace) ?? {};
    if (!admin) throw new Error("no env");
    await operatorFor(namespace, {
      RUNNER_IMAGE: `${runner.reference.split(":")[0] ?? ""}:no-such-tag`,
      RUNNER_PENDING_TIMEOUT_SECONDS: "20",
    });
    const r = testPrediction(namespace, "v1");
    const name = r.metadata.name ?? "";
    await createPrediction(admin, r);
    // The kubelet's own verdict first (the pod may be gone once the resource has failed).
    const reason = await waitFor(
      "the kubelet to fail the image pull",
      async () => {
        const [pod] = await runnerPods(admin, namespace, name);
        return pod?.status?.containerStatuses?.[0]?.state?.waiting?.reason?.match(/Image/) ? pod : undefined;
      },
      { timeoutMs: 120_000 },
    );
    expect(["ErrImagePull", "ImagePullBackOff"]).toContain(
      reason.status?.containerStatuses?.[0]?.state?.waiting?.reason,
    );
    const failed = await waitForPhase(admin, namespace, name, "Failed", 180_000);
    expect(failed.status?.failure).toMatchObject({ reason: "ImagePullFailed", errorCode: "job_stalled" });
  });

  it("a prediction submitted through the API in Kubernetes dispatch mode runs in the runner image and completes, its callback key mounted from the Secret", async () => {
    const namespace = namespaces.api;
    const testEnv = envs.get(namespace);
    if (!testEnv) throw new Error("no env");
    const { admin, kube, tmp } = testEnv;
    const hostIp = requireNode().hostIp;
    // Pods reach the host only at its bridge address: S3 and the API listen there.
    const s3 = await startS3("causeway-node", { address: hostIp });
    cleanups.push(() => s3.stop());
    const apiSa = await serviceAccountKubeconfig(kube, {
      namespace,
      name: "causeway-api",
      path: join(tmp.path, "api.kubeconfig"),
    });
    const port = await freePort();
    const base = `http://${hostIp}:${port}`;
    const storage = {
      CAUSEWAY_STORAGE: "s3",
      S3_BUCKET: s3.config.bucket,
      S3_REGION: s3.config.region,
      S3_ENDPOINT: s3.config.endpoint,
      S3_FORCE_PATH_STYLE: "true",
    };
    const apiEnv = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      ...storage,
      AWS_ACCESS_KEY_ID: s3.config.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.config.secretAccessKey,
      DATABASE_URL: db.url,
      REDIS_URL: inject("redisUrl"),
      CAUSEWAY_CALLBACK_SECRET: CALLBACK_SECRET,
      CAUSEWAY_CALLBACK_BASE_URL: base,
      CAUSEWAY_DISPATCH: "kubernetes",
      CAUSEWAY_NAMESPACE: namespace,
      KUBECONFIG: apiSa.kubeconfigPath,
      CAUSEWAY_EDGE_LIMIT_ENABLED: "false",
      HOST: hostIp,
      PORT: String(port),
      LOG_LEVEL: "warn",
    };
    const adminCli = async (...args: string[]): Promise<string> =>
      (await exec(projectNode(), ["api/src/admin/cli.ts", ...args], { cwd: REPO_ROOT, env: apiEnv })).stdout;
    await adminCli("migrate");
    await adminCli(
      "models",
      "import",
      "--network",
      DEFAULT_NETWORK,
      "--hgnc",
      HGNC_DIR,
      "--version",
      "v1",
      "--default",
    );
    const account = JSON.parse(
      (await adminCli("accounts", "create", "--name", "real-node", "--tier", "internal", "--json"))
        .trim()
        .split("\n")
        .at(-1) ?? "{}",
    ) as { api_key: string };
    const api = startProcess({
      name: "causeway-api",
      command: projectNode(),
      args: ["api/src/main.ts"],
      cwd: REPO_ROOT,
      env: apiEnv,
      logPath: join(tmp.path, "api.log"),
    });
    cleanups.push(() => api.stop("SIGTERM", 10_000));
    await waitFor("the API /health", async () => ((await fetch(`${base}/health`)).ok ? true : undefined), {
      timeoutMs: 120_000,
      intervalMs: 500,
      proc: api,
    });

    // The runner's S3 credentials come from a Secret, as the chart's s3.credentialsSecret does.
    await clients(admin).core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: "s3-credentials", namespace },
        stringData: {
          AWS_ACCESS_KEY_ID: s3.config.accessKeyId,
          AWS_SECRET_ACCESS_KEY: s3.config.secretAccessKey,
        },
      },
    });
    await operatorFor(namespace, {
      CAUSEWAY_CALLBACK_BASE_URL: base,
      ...storage,
      S3_CREDENTIALS_SECRET: "s3-credentials",
      RUNNER_RESOURCES: JSON.stringify({
        requests: { cpu: "100m", memory: "256Mi" },
        limits: { memory: "3Gi" },
      }),
    });

    const split = join(KANG_DIR, "split_cd14mono");
    const form = new FormData();
    form.set("dataset_control", new Blob([await readFile(join(split, "control.h5ad"))]), "control.h5ad");
    form.set("dataset_pert", new Blob([await readFile(join(split, "perturbed.h5ad"))]), "perturbed.h5ad");
    form.set("degs", await readFile(join(split, "degs.json"), "utf8"));
    form.set("job_type", "target_validation");
    form.set("target", "STAT1|PROTEIN");
    const headers = { "X-API-Key": account.api_key };
    const created = await fetch(`${base}/v1/predictions`, { method: "POST", body: form, headers });
    const body = (await created.json()) as { prediction_id: string };
    expect(created.status, JSON.stringify(body)).toBeLessThan(300);
    const id = body.prediction_id;

    // The operator removes a finished Job with its pods: remember the runner pod while it exists.
    let seen: V1Pod | undefined;
    const done = await waitFor(
      `prediction ${id} to finish`,
      async () => {
        const pods = await clients(admin).core.listNamespacedPod({ namespace });
        seen = pods.items.find((p) => p.status?.containerStatuses?.[0]?.imageID) ?? seen;
        const res = await fetch(`${base}/v1/predictions/${id}`, { headers });
        const status = (await res.json()) as { status: string; error_code?: string | null };
        return status.status === "completed" || status.status === "failed" ? status : undefined;
      },
      { timeoutMs: 600_000, intervalMs: 1_000 },
    );
    expect(done).toMatchObject({ status: "completed" });
    expect(seen?.spec?.nodeName).toBe(requireNode().name);
    expect(seen?.status?.containerStatuses?.[0]?.image).toBe(`docker.io/${runner.reference}`);
    // The callback key reached the runner (its callbacks were accepted) as a file of the mounted
    // Secret, readable by the runner's user through fsGroup; it is not in the environment.
    const container = seen?.spec?.containers[0];
    expect(container?.env?.map((e) => e.name)).not.toContain("CAUSEWAY_CALLBACK_KEY");
    expect(container?.env?.find((e) => e.name === "CAUSEWAY_CALLBACK_KEY_FILE")?.value).toBe(
      "/var/run/causeway/callback/callback-key",
    );
    expect(seen?.spec?.volumes?.find((v) => v.name === "callback")?.secret?.secretName).toMatch(/-callback$/);
    const resource = await clients(admin).custom.listNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: RESOURCES.prediction.plural,
    });
    const items = (resource as { items: PredictionResource[] }).items;
    expect(items.map((r) => r.status?.phase)).toEqual(["Completed"]);
  });
});
