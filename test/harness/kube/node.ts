/**
 * A real node for the test control plane: containerd (CRI, runc, CNI bridge + host-local) and a
 * kubelet registered to the API server, all as child processes with their files in one temp dir.
 *
 * Host footprint, all removed by stop(): one Linux bridge with a private /24 (pods talk to the host
 * through the bridge address; without `serviceProxy` there is no NAT and no iptables rule), with
 * `serviceProxy` kube-proxy's iptables chains (removed by `kube-proxy --cleanup`), one cgroup subtree per hierarchy
 * (`/causeway-<id>`, the kubelet's cgroupRoot), the shim sockets containerd's shims put under
 * /run/containerd whatever the config says, and the kubelet's log links in /var/log/containers.
 *
 * No kube-scheduler runs: with one node there is nothing to choose, so the harness binds the
 * unscheduled pods of the test's namespaces to this node (a Binding, as the scheduler would post).
 *
 * `serviceProxy` starts kube-proxy (iptables mode, masquerading all Service traffic so that a pod
 * reaching a pod on the same bridge through a ClusterIP gets its replies back without
 * br_netfilter): Pods then reach the API server through the `kubernetes` Service, as in-cluster
 * clients do, and each other through Services. One node at a time may run it (the chains are
 * the host's).
 */
import { CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { appendFile, mkdir, readdir, readlink, rmdir, unlink, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { requireBinary } from "../binaries.ts";
import { freePort } from "../ports.ts";
import { makeTempDir, startProcess, waitFor, type ManagedProcess } from "../proc.ts";
import { repoRoot } from "../repo.ts";
import { cacheRoot } from "./binaries.ts";
import { loadKubeConfig } from "./service-account.ts";
import type { KubeAccess } from "./types.ts";

const run = promisify(execFile);

/** The image containerd uses for pod sandboxes; build-kubelet.sh builds it (nothing can be pulled). */
export const PAUSE_IMAGE = "registry.k8s.io/pause:3.10";
const CNI_DIR = "/usr/lib/cni";
const CGROUP_ROOT = "/sys/fs/cgroup";
const SHIM_SOCKETS = "/run/containerd/s";
const CONTAINER_LOG_LINKS = "/var/log/containers";

/** A running node. */
export interface RealNode {
  /** The Node's name in the API. */
  readonly name: string;
  /** The host's address on the pod bridge: pods reach services of the test process there. */
  readonly hostIp: string;
  /** Temp dir with containerd.log, kubelet.log and their state. */
  readonly dir: string;
  /** Imports an OCI layout tar into containerd's CRI namespace as `<baseName>:<tag of the layout>`. */
  importImage(tar: string, baseName: string): Promise<void>;
  stop(): Promise<void>;
}

/** The kubelet, kube-proxy and pause image of build-kubelet.sh, built when missing. */
async function ensureKubeletDir(version: string): Promise<string> {
  const dir = join(cacheRoot(), "kubelet", version);
  if (existsSync(join(dir, "BUILD_INFO")) && existsSync(join(dir, "kube-proxy"))) return dir;
  process.stderr.write(`[harness] kubelet ${version} missing: running test/harness/kube/build-kubelet.sh\n`);
  await new Promise<void>((resolve, reject) => {
    const child = spawn("bash", [join(repoRoot, "test/harness/kube/build-kubelet.sh")], {
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, CAUSEWAY_KUBE_VERSION: version },
    });
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`build-kubelet.sh failed with exit code ${String(code)}`)),
    );
  });
  return dir;
}

/** The cgroup hierarchies: v1 (cpu, memory, ..., name=systemd) and the v2 mount, where runc creates its groups too. */
function cgroupHierarchies(): string[] {
  return readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .filter((line) => / - cgroup2? /.test(line))
    .map((line) => line.split(" ")[4] ?? "")
    .filter((mount) => mount.startsWith(`${CGROUP_ROOT}/`));
}

/** A /24 in 10.200.0.0/13 that no route of the host uses yet. */
async function freeSubnet(): Promise<{ hostIp: string; cidr: string }> {
  const { stdout } = await run("ip", ["-4", "route", "show"]);
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const [a, b] = randomBytes(2);
    const prefix = `10.${200 + ((a ?? 0) % 8)}.${b ?? 0}`;
    if (!stdout.includes(`${prefix}.`)) return { hostIp: `${prefix}.1`, cidr: `${prefix}.0/24` };
  }
  throw new Error("no free /24 for the pod bridge in 10.200.0.0/13");
}

async function removeCgroupTree(path: string): Promise<void> {
  if (!existsSync(path)) return;
  for (const entry of await readdir(path, { withFileTypes: true })) {
    if (entry.isDirectory()) await removeCgroupTree(join(path, entry.name));
  }
  // A process still inside keeps the cgroup busy: kill it first (only ours live under this root).
  try {
    for (const pid of readFileSync(join(path, "cgroup.procs"), "utf8").split("\n").filter(Boolean)) {
      try {
        process.kill(Number(pid), "SIGKILL");
      } catch {
        /* already gone */
      }
    }
  } catch {
    /* no cgroup.procs: nothing to kill */
  }
  await waitFor(
    `cgroup ${path} to be removed`,
    async () => {
      await rmdir(path);
      return true;
    },
    { timeoutMs: 10_000, intervalMs: 200 },
  ).catch(() => undefined);
}

/** Pids of containerd shims serving `address` (daemonized: they are not our children). */
function shimPids(address: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (argv[0]?.includes("containerd-shim") && argv.includes(address)) pids.push(Number(entry));
    } catch {
      /* the process ended meanwhile */
    }
  }
  return pids;
}

/** True when nothing listens on the Unix socket `path` any more. */
async function isDeadSocket(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

/** Mount points under `dir` (secret tmpfs, overlay rootfs, netns), deepest first. */
function mountsUnder(dir: string): string[] {
  return readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[4] ?? "")
    .filter((mount) => mount.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
}

function containerdConfig(dir: string): string {
  // restrict_oom_score_adj: root here lacks CAP_SYS_RESOURCE, so runc cannot lower oom_score_adj.
  // netns_mounts_under_state_dir keeps the pods' network namespaces in this temp dir.
  return `version = 2
root = "${dir}/containerd/root"
state = "${dir}/containerd/state"
[grpc]
  address = "${dir}/containerd.sock"
[ttrpc]
  address = "${dir}/containerd-ttrpc.sock"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "${dir}/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${PAUSE_IMAGE}"
  restrict_oom_score_adj = true
  disable_apparmor = true
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "${CNI_DIR}"
    conf_dir = "${dir}/cni"
`;
}

function kubeletConfig(o: {
  dir: string;
  hostIp: string;
  port: number;
  healthzPort: number;
  cgroupRoot: string;
}): string {
  // failCgroupV1 / cgroupfs: the machines run cgroup v1 without systemd. The eviction thresholds
  // are as low as they go: a shared CI disk must not evict the tests' pods.
  return JSON.stringify({
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    kind: "KubeletConfiguration",
    failCgroupV1: false,
    cgroupDriver: "cgroupfs",
    cgroupRoot: o.cgroupRoot,
    containerRuntimeEndpoint: `unix://${o.dir}/containerd.sock`,
    // Not /var/log/pods; the kubelet's links in /var/log/containers (a fixed path) are removed at stop.
    podLogsDir: join(o.dir, "pod-logs"),
    address: o.hostIp,
    port: o.port,
    readOnlyPort: 0,
    healthzBindAddress: "127.0.0.1",
    healthzPort: o.healthzPort,
    authentication: { anonymous: { enabled: false }, webhook: { enabled: false } },
    authorization: { mode: "AlwaysAllow" },
    failSwapOn: false,
    evictionHard: {
      "memory.available": "1Mi",
      "nodefs.available": "1%",
      "imagefs.available": "1%",
      "nodefs.inodesFree": "1%",
    },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    makeIPTablesUtilChains: false,
    resolvConf: "/etc/resolv.conf",
    syncFrequency: "5s",
    nodeStatusUpdateFrequency: "5s",
    serializeImagePulls: false,
  });
}

/**
 * Binds every pod of `namespaces` that has no node yet to `nodeName`, until stopped. Only those
 * namespaces: the kubelet double of other test files plays the pods of theirs.
 */
function startBinder(
  kc: KubeConfig,
  nodeName: string,
  namespaces: readonly string[],
): { stop(): Promise<void> } {
  const core = kc.makeApiClient(CoreV1Api);
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const lists = await Promise.all(
          namespaces.map((namespace) =>
            core.listNamespacedPod({ namespace, fieldSelector: "spec.nodeName=" }),
          ),
        );
        for (const pod of lists.flatMap((l) => l.items)) {
          const { name, namespace } = pod.metadata ?? {};
          if (!name || !namespace || pod.metadata?.deletionTimestamp) continue;
          await core
            .createNamespacedBinding({
              namespace,
              body: {
                metadata: { name, namespace },
                target: { apiVersion: "v1", kind: "Node", name: nodeName },
              },
            })
            .catch(() => undefined); // bound meanwhile, or deleted
        }
      } catch {
        /* the API server is going away at the end of a run */
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/**
 * Starts containerd and a kubelet registered to `kube` as a Ready node. Needs root, containerd, runc,
 * containernetworking-plugins and umoci (Debian packages), and the kubelet of build-kubelet.sh.
 */
export async function startNode(
  kube: KubeAccess,
  options: { namespaces: readonly string[]; serviceProxy?: boolean },
): Promise<RealNode> {
  const containerd = requireBinary("containerd", "apt-get install containerd");
  const ctr = requireBinary("ctr", "apt-get install containerd");
  requireBinary("runc", "apt-get install runc", ["/usr/sbin", "/sbin"]);
  for (const plugin of ["bridge", "host-local"]) {
    if (!existsSync(join(CNI_DIR, plugin)))
      throw new Error(`${CNI_DIR}/${plugin} is missing: apt-get install containernetworking-plugins`);
  }
  if (process.getuid?.() !== 0) throw new Error("a real node needs root (containerd, cgroups, a bridge)");
  const kubeletDir = await ensureKubeletDir(kube.version);

  const temp = await makeTempDir("node");
  const dir = temp.path;
  const id = randomBytes(3).toString("hex");
  const name = `causeway-node-${id}`;
  const bridge = `cwbr${id}`;
  const cgroupRoot = `/causeway-${id}`;
  const address = join(dir, "containerd.sock");
  const procs: ManagedProcess[] = [];
  const kc = loadKubeConfig(kube);
  let binder: { stop(): Promise<void> } | undefined;
  const socketsBefore = new Set(existsSync(SHIM_SOCKETS) ? readdirSync(SHIM_SOCKETS) : []);
  const { hostIp, cidr } = await freeSubnet();
  const ctrCall = (args: readonly string[]): Promise<{ stdout: string }> =>
    run(ctr, ["--address", address, "--namespace", "k8s.io", ...args], { maxBuffer: 16 * 1024 * 1024 });

  const stop = async (): Promise<void> => {
    await binder?.stop();
    const proxy = procs.find((p) => p.name === "kube-proxy");
    if (proxy) {
      await proxy.stop("SIGTERM", 10_000);
      await run(join(kubeletDir, "kube-proxy"), ["--cleanup"]).catch((err: unknown) =>
        process.stderr.write(`[harness] kube-proxy --cleanup failed: ${String(err)}\n`),
      );
    }
    const kubelet = procs.find((p) => p.name === "kubelet");
    await kubelet?.stop("SIGTERM", 10_000);
    // The containers outlive the kubelet: kill their tasks through containerd, then containerd.
    const containerdProc = procs.find((p) => p.name === "containerd");
    if (containerdProc && !containerdProc.hasExited()) {
      const tasks = await ctrCall(["tasks", "ls", "-q"]).catch(() => ({ stdout: "" }));
      for (const task of tasks.stdout.split("\n").filter(Boolean)) {
        await ctrCall(["tasks", "kill", "--signal", "SIGKILL", task]).catch(() => undefined);
        await ctrCall(["tasks", "delete", "--force", task]).catch(() => undefined);
      }
      await containerdProc.stop("SIGTERM", 10_000);
    }
    for (const pid of shimPids(address)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* gone */
      }
    }
    for (const mount of mountsUnder(dir)) await run("umount", ["-l", mount]).catch(() => undefined);
    for (const hierarchy of cgroupHierarchies()) await removeCgroupTree(join(hierarchy, cgroupRoot));
    await run("ip", ["link", "del", bridge]).catch(() => undefined);
    await removeEmptyKubeletChain();
    if (existsSync(CONTAINER_LOG_LINKS)) {
      for (const entry of readdirSync(CONTAINER_LOG_LINKS)) {
        const path = join(CONTAINER_LOG_LINKS, entry);
        const target = await readlink(path).catch(() => "");
        if (target.startsWith(`${dir}/`)) await unlink(path).catch(() => undefined);
      }
    }
    // Empty state folders the shims and runc left: rmdir keeps whatever another containerd still uses.
    for (const leftover of ["/run/containerd/runc/k8s.io", "/run/containerd/runc"]) {
      await rmdir(leftover).catch(() => undefined);
    }
    if (existsSync(SHIM_SOCKETS)) {
      for (const entry of readdirSync(SHIM_SOCKETS)) {
        const path = join(SHIM_SOCKETS, entry);
        if (!socketsBefore.has(entry) && (await isDeadSocket(path)))
          await run("rm", ["-f", path]).catch(() => undefined);
      }
      await rmdir(SHIM_SOCKETS).catch(() => undefined);
      await rmdir("/run/containerd").catch(() => undefined);
    }
  };

  try {
    // The bridge exists before the first pod, so the host address is there for the tests' servers.
    await run("ip", ["link", "add", "name", bridge, "type", "bridge"]);
    await run("ip", ["addr", "add", `${hostIp}/24`, "dev", bridge]);
    await run("ip", ["link", "set", bridge, "up"]);
    await mkdir(join(dir, "cni"), { recursive: true });
    await writeFile(
      join(dir, "cni", "10-causeway.conflist"),
      JSON.stringify({
        cniVersion: "1.0.0",
        name: "causeway",
        plugins: [
          {
            type: "bridge",
            bridge,
            // The default route through the bridge: ClusterIPs are not in the pods' subnet.
            isDefaultGateway: true,
            ipMasq: false,
            hairpinMode: true,
            ipam: {
              type: "host-local",
              ranges: [[{ subnet: cidr, gateway: hostIp }]],
              dataDir: join(dir, "cni", "ipam"),
            },
          },
        ],
      }),
    );

    // The kubelet's cgroupRoot must exist; cpuset children start empty and need the parent's sets.
    for (const hierarchy of cgroupHierarchies()) {
      const path = join(hierarchy, cgroupRoot);
      await mkdir(path, { recursive: true });
      if (hierarchy.endsWith("/cpuset")) {
        for (const file of ["cpuset.cpus", "cpuset.mems"])
          await appendFile(join(path, file), readFileSync(join(hierarchy, file), "utf8"));
      }
    }

    await writeFile(join(dir, "containerd.toml"), containerdConfig(dir));
    const containerdProc = startProcess({
      name: "containerd",
      command: containerd,
      args: ["--config", join(dir, "containerd.toml")],
      logPath: join(dir, "containerd.log"),
      cwd: dir,
    });
    procs.push(containerdProc);
    await waitFor(
      "containerd's CRI plugin",
      async () =>
        (await ctrCall(["plugins", "ls"])).stdout.match(/cri\s+linux\/amd64\s+ok/) ? true : undefined,
      { timeoutMs: 30_000, intervalMs: 200, proc: containerdProc },
    );
    await ctrCall([
      "images",
      "import",
      "--base-name",
      PAUSE_IMAGE.split(":")[0] ?? "",
      join(kubeletDir, "pause.tar"),
    ]);

    const [port, healthzPort] = await Promise.all([freePort(), freePort()]);
    await writeFile(join(dir, "kubelet.json"), kubeletConfig({ dir, hostIp, port, healthzPort, cgroupRoot }));
    const kubelet = startProcess({
      name: "kubelet",
      command: join(kubeletDir, "kubelet"),
      args: [
        `--config=${join(dir, "kubelet.json")}`,
        `--kubeconfig=${kube.kubeconfigPath}`,
        `--root-dir=${join(dir, "kubelet")}`,
        `--cert-dir=${join(dir, "kubelet", "pki")}`,
        `--hostname-override=${name}`,
        `--node-ip=${hostIp}`,
        "--v=1",
      ],
      logPath: join(dir, "kubelet.log"),
      cwd: dir,
    });
    procs.push(kubelet);
    const core = kc.makeApiClient(CoreV1Api);
    await waitFor(
      `node ${name} Ready`,
      async () => {
        const node = await core.readNode({ name });
        return node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")
          ? true
          : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500, proc: kubelet },
    );
    binder = startBinder(kc, name, options.namespaces);
    if (options.serviceProxy) procs.push(await startKubeProxy({ kubeletDir, dir, kube, name, cidr }));

    return {
      name,
      hostIp,
      dir,
      async importImage(tar, baseName) {
        await ctrCall(["images", "import", "--base-name", baseName, tar]);
      },
      async stop() {
        await stop();
        await core.deleteNode({ name }).catch(() => undefined);
        await temp.remove();
      },
    };
  } catch (error) {
    await stop();
    // The temp dir is kept on failure: its logs explain what went wrong.
    throw error;
  }
}

/**
 * The kubelet leaves an empty KUBE-FIREWALL chain in the host's filter table, jumped to from INPUT
 * and OUTPUT. Removed when empty (another node's kubelet would only make it again).
 */
async function removeEmptyKubeletChain(): Promise<void> {
  const listed = await run("iptables", ["-S", "KUBE-FIREWALL"]).catch(() => null);
  if (!listed || listed.stdout.trim().split("\n").length > 1) return;
  for (const from of ["INPUT", "OUTPUT"])
    await run("iptables", ["-D", from, "-j", "KUBE-FIREWALL"]).catch(() => undefined);
  await run("iptables", ["-X", "KUBE-FIREWALL"]).catch(() => undefined);
}

/**
 * kube-proxy in iptables mode for the node `name`: ClusterIPs of every Service, the `kubernetes`
 * one included, DNAT-ed to their endpoints. Conntrack sysctls are left alone (0 = do not set);
 * all Service traffic is masqueraded (see startNode). Ready when it has programmed the rules once.
 */
async function startKubeProxy(o: {
  kubeletDir: string;
  dir: string;
  kube: KubeAccess;
  name: string;
  cidr: string;
}): Promise<ManagedProcess> {
  const [healthz, metrics] = await Promise.all([freePort(), freePort()]);
  const config = join(o.dir, "kube-proxy.json");
  await writeFile(
    config,
    JSON.stringify({
      apiVersion: "kubeproxy.config.k8s.io/v1alpha1",
      kind: "KubeProxyConfiguration",
      clientConnection: { kubeconfig: o.kube.kubeconfigPath },
      mode: "iptables",
      hostnameOverride: o.name,
      clusterCIDR: o.cidr,
      healthzBindAddress: `127.0.0.1:${healthz}`,
      metricsBindAddress: `127.0.0.1:${metrics}`,
      conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: "0s", tcpCloseWaitTimeout: "0s" },
      iptables: { masqueradeAll: true, localhostNodePorts: false, syncPeriod: "30s", minSyncPeriod: "0s" },
    }),
  );
  const proxy = startProcess({
    name: "kube-proxy",
    command: join(o.kubeletDir, "kube-proxy"),
    args: [`--config=${config}`, "--v=1"],
    logPath: join(o.dir, "kube-proxy.log"),
    cwd: o.dir,
  });
  await waitFor(
    "kube-proxy /healthz",
    async () => {
      const res = await fetch(`http://127.0.0.1:${healthz}/healthz`, { signal: AbortSignal.timeout(2_000) });
      return res.ok ? true : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250, proc: proxy },
  );
  return proxy;
}
