import { execFile } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { request } from "node:https";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "../ports.ts";
import { makeTempDir, startProcess, waitFor, type ManagedProcess } from "../proc.ts";
import { ensureKubeBinDir } from "./binaries.ts";
import { writeKubeconfig } from "./kubeconfig.ts";
import type { KubeAccess } from "./types.ts";

const run = promisify(execFile);

/** A running etcd + kube-apiserver + kube-controller-manager. No scheduler and no kubelet run. */
export interface ControlPlane extends KubeAccess {
  /** Temp dir with logs (etcd.log, kube-apiserver.log, kube-controller-manager.log), certs and kubeconfig. */
  readonly dir: string;
  /** Milliseconds each component took to become ready. */
  readonly timings: { etcd: number; apiserver: number; controllerManager: number };
  stop(): Promise<void>;
}

/** Options of {@link startControlPlane}. */
export interface ControlPlaneOptions {
  /** Directory with the three binaries; default: the build.sh cache (built when missing). */
  binDir?: string;
  /**
   * kube-controller-manager controllers. The legacy names are used on purpose: newer releases accept
   * them as aliases and v1.20 (the Debian fallback) knows only them.
   */
  controllers?: readonly string[];
}

/** Controllers the tests need: Jobs create Pods, owner GC, Job TTL, ServiceAccounts and their tokens, namespace deletion, Deployments. */
export const DEFAULT_CONTROLLERS = [
  "job",
  "garbagecollector",
  "ttl-after-finished",
  "serviceaccount",
  "serviceaccount-token",
  "namespace",
  "root-ca-cert-publisher",
  // The chart's Deployments, installed on a real node.
  "deployment",
  "replicaset",
] as const;

/** Minor version from `kube-apiserver --version` ("Kubernetes v1.36.4"). */
async function kubeVersion(binDir: string): Promise<{ version: string; minor: number }> {
  const { stdout } = await run(join(binDir, "kube-apiserver"), ["--version"]);
  const match = /v1\.(\d+)\.\d+\S*/.exec(stdout);
  if (!match?.[1]) throw new Error(`cannot read the kube-apiserver version from: ${stdout}`);
  return { version: match[0], minor: Number(match[1]) };
}

async function etcdSupportsNoFsync(binDir: string): Promise<boolean> {
  const { stdout } = await run(join(binDir, "etcd"), ["--version"]);
  const match = /etcd Version: 3\.(\d+)/.exec(stdout);
  return match?.[1] !== undefined && Number(match[1]) >= 5;
}

/** GET over HTTPS without verifying the certificate (only used to wait for readiness). */
async function httpsGet(url: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "GET",
        rejectUnauthorized: false,
        headers: { Authorization: `Bearer ${token}` },
        timeout: 5_000,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end();
  });
}

/**
 * The host's address for the API server to advertise: the `kubernetes` Service's endpoint, which
 * Pods of a real node reach through kube-proxy (127.0.0.1 would be their own loopback). The first
 * global IPv4 address of an interface that is not a test node's bridge; 127.0.0.1 when there is none.
 */
async function hostAddress(): Promise<string> {
  const { stdout } = await run("ip", ["-4", "-o", "addr", "show", "scope", "global"]).catch(() => ({
    stdout: "",
  }));
  for (const line of stdout.split("\n")) {
    const [, ifname, , cidr] = line.trim().split(/\s+/);
    if (!ifname || !cidr || ifname.startsWith("cwbr")) continue;
    return cidr.split("/")[0] ?? "127.0.0.1";
  }
  return "127.0.0.1";
}

/**
 * A self-signed serving certificate for every name the API server is reached by: loopback (the
 * tests), the advertised host address and the `kubernetes` Service (Pods). The API server's own
 * self-signed certificate leaves out 127.0.0.1 once another address is advertised.
 */
async function servingCertificate(dir: string, advertised: string): Promise<{ cert: string; key: string }> {
  const cert = join(dir, "certs", "serving.crt");
  const key = join(dir, "certs", "serving.key");
  const names = [
    "IP:127.0.0.1",
    `IP:${advertised}`,
    `IP:${SERVICE_IP}`,
    "DNS:localhost",
    "DNS:kubernetes",
    "DNS:kubernetes.default",
    "DNS:kubernetes.default.svc",
  ];
  await run("openssl", [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "7",
    "-subj",
    "/CN=kube-apiserver",
    "-addext",
    `subjectAltName=${[...new Set(names)].join(",")}`,
    "-keyout",
    key,
    "-out",
    cert,
  ]);
  return { cert, key };
}

/** The first address of --service-cluster-ip-range: the `kubernetes` Service's ClusterIP. */
const SERVICE_IP = "10.0.0.1";

/**
 * Starts etcd, kube-apiserver (RBAC, a static admin token in system:masters, a service-account key
 * pair) and kube-controller-manager (no leader election) on free loopback ports in a temp dir, waits
 * until the API server is ready and the ServiceAccount controller has made `default/default`, and
 * writes an admin kubeconfig.
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const binDir = options.binDir ?? (await ensureKubeBinDir());
  const { version, minor } = await kubeVersion(binDir);
  const temp = await makeTempDir("kube");
  const dir = temp.path;
  const procs: ManagedProcess[] = [];
  const stopAll = async (): Promise<void> => {
    // Reverse order: the controller manager first, etcd last.
    for (const proc of procs.reverse()) await proc.stop("SIGTERM", 10_000);
    procs.length = 0;
  };
  try {
    const [etcdClient, etcdPeer, apiPort, kcmPort] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);

    // Service-account token signing keys. PKCS#1 RSA keys are read by every Kubernetes version.
    const keys = generateKeyPairSync("rsa", {
      modulusLength: 2048,
      publicKeyEncoding: { type: "spki", format: "pem" },
      privateKeyEncoding: { type: "pkcs1", format: "pem" },
    });
    await writeFile(join(dir, "sa.pub"), keys.publicKey);
    await writeFile(join(dir, "sa.key"), keys.privateKey, { mode: 0o600 });
    const token = randomBytes(24).toString("hex");
    await writeFile(join(dir, "tokens.csv"), `${token},admin,admin,"system:masters"\n`, { mode: 0o600 });
    await mkdir(join(dir, "certs"));

    let mark = Date.now();
    const lap = (): number => {
      const now = Date.now();
      const took = now - mark;
      mark = now;
      return took;
    };
    const etcd = startProcess({
      name: "etcd",
      command: join(binDir, "etcd"),
      args: [
        "--name=default",
        `--data-dir=${join(dir, "etcd")}`,
        `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
        `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
        `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-cluster=default=http://127.0.0.1:${etcdPeer}`,
        "--log-level=warn",
        // The data is thrown away after the run: skipping fsync makes writes much faster.
        ...((await etcdSupportsNoFsync(binDir)) ? ["--unsafe-no-fsync"] : []),
      ],
      logPath: join(dir, "etcd.log"),
      cwd: dir,
    });
    procs.push(etcd);
    await waitFor(
      "etcd /health",
      async () => {
        const res = await fetch(`http://127.0.0.1:${etcdClient}/health`, {
          signal: AbortSignal.timeout(2_000),
        });
        return res.ok ? true : undefined;
      },
      { timeoutMs: 30_000, proc: etcd },
    );

    const etcdMs = lap();

    const server = `https://127.0.0.1:${apiPort}`;
    const advertised = await hostAddress();
    const serving = await servingCertificate(dir, advertised);
    const apiserver = startProcess({
      name: "kube-apiserver",
      command: join(binDir, "kube-apiserver"),
      args: [
        `--etcd-servers=http://127.0.0.1:${etcdClient}`,
        `--secure-port=${apiPort}`,
        // Every interface: a real node's Pods come in through its bridge (the token and RBAC
        // guard it as any API server; the port is a free one of this run).
        "--bind-address=0.0.0.0",
        `--advertise-address=${advertised}`,
        `--tls-cert-file=${serving.cert}`,
        `--tls-private-key-file=${serving.key}`,
        "--service-account-issuer=https://kubernetes.default.svc",
        `--service-account-key-file=${join(dir, "sa.pub")}`,
        `--service-account-signing-key-file=${join(dir, "sa.key")}`,
        // Traffic reaches ClusterIPs only where a real node runs kube-proxy.
        "--service-cluster-ip-range=10.0.0.0/24",
        "--authorization-mode=RBAC",
        // As OpenShift and hardened clusters run: a Job whose owner reference blocks its
        // owner's deletion needs the right to update the owner's finalizers (chart RBAC).
        "--enable-admission-plugins=OwnerReferencesPermissionEnforcement",
        `--token-auth-file=${join(dir, "tokens.csv")}`,
        "--allow-privileged=true",
        "--profiling=false",
        ...(minor < 24 ? ["--insecure-port=0"] : []),
      ],
      logPath: join(dir, "kube-apiserver.log"),
      cwd: dir,
    });
    procs.push(apiserver);
    await waitFor(
      "kube-apiserver /readyz",
      async () => ((await httpsGet(`${server}/readyz`, token)).status === 200 ? true : undefined),
      { timeoutMs: 120_000, intervalMs: 250, proc: apiserver },
    );
    const apiserverMs = lap();
    const caData = await readFile(serving.cert, "utf8");
    const kubeconfigPath = join(dir, "admin.kubeconfig");
    await writeKubeconfig(kubeconfigPath, { server, token, caData, user: "admin" });

    const controllers = options.controllers ?? DEFAULT_CONTROLLERS;
    const kcm = startProcess({
      name: "kube-controller-manager",
      command: join(binDir, "kube-controller-manager"),
      args: [
        `--kubeconfig=${kubeconfigPath}`,
        `--controllers=${controllers.join(",")}`,
        `--service-account-private-key-file=${join(dir, "sa.key")}`,
        `--root-ca-file=${serving.cert}`,
        "--leader-elect=false",
        "--bind-address=127.0.0.1",
        `--secure-port=${kcmPort}`,
        `--cert-dir=${join(dir, "kcm-certs")}`,
        "--profiling=false",
        ...(minor < 23 ? ["--feature-gates=TTLAfterFinished=true"] : []),
        ...(minor < 24 ? ["--port=0"] : []),
      ],
      logPath: join(dir, "kube-controller-manager.log"),
      cwd: dir,
    });
    procs.push(kcm);
    // Pods can only be created once the ServiceAccount controller has made the `default` account.
    await waitFor(
      "the ServiceAccount controller to create default/default",
      async () =>
        (await httpsGet(`${server}/api/v1/namespaces/default/serviceaccounts/default`, token)).status === 200
          ? true
          : undefined,
      { timeoutMs: 120_000, intervalMs: 250, proc: kcm },
    );

    const controllerManagerMs = lap();

    return {
      timings: { etcd: etcdMs, apiserver: apiserverMs, controllerManager: controllerManagerMs },
      kubeconfigPath,
      server,
      token,
      caData,
      version,
      dir,
      async stop(): Promise<void> {
        await stopAll();
        await temp.remove();
      },
    };
  } catch (error) {
    await stopAll();
    // The temp dir is kept on failure: its logs explain what went wrong.
    throw error;
  }
}
