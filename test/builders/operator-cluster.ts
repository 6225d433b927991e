/**
 * Builders for the operator's cluster tests: one test environment (`OperatorCluster`: the CRDs,
 * a namespace with the chart's RBAC, the kubelet double, operator child processes, all torn down
 * in one place), a fake runner for the kubelet double, and a proxy that breaks watches on purpose.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { openSync, closeSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Agent, request as httpsRequest } from "node:https";
import { join } from "node:path";
import {
  ApiextensionsV1Api,
  BatchV1Api,
  CoreV1Api,
  CustomObjectsApi,
  RbacAuthorizationV1Api,
  type KubeConfig,
  type V1CustomResourceDefinition,
  type V1Job,
  type V1PolicyRule,
} from "@kubernetes/client-node";
import { parse } from "yaml";
import type { PredictionJobSpec } from "@causeway/contract";
import { GROUP, LABELS, RESOURCES, VERSION, type PredictionResource } from "@causeway/contract";
import { predictionSpec } from "./prediction.ts";
import { injectKube } from "../harness/vitest.ts";
import { loadKubeConfig, serviceAccountKubeconfig } from "../harness/kube/service-account.ts";
import {
  startKubeletDouble,
  type KubeletDouble,
  type KubeletDoubleOptions,
} from "../harness/kubelet-double.ts";
import { freePort } from "../harness/ports.ts";
import { makeTempDir, waitFor, type TempDir } from "../harness/proc.ts";
import { projectNode } from "../harness/repo.ts";

/** The repository root. */
export const REPO = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");

const isCode = (err: unknown, code: number): boolean =>
  typeof err === "object" && err !== null && "code" in err && (err as { code: unknown }).code === code;

/** Applies the generated CRDs (create, or replace when present) and waits until they are Established. */
export async function applyCrds(kc: KubeConfig): Promise<void> {
  const api = kc.makeApiClient(ApiextensionsV1Api);
  const dir = join(REPO, "crds");
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".yaml"))) {
    const crd = parse(readFileSync(join(dir, file), "utf8")) as V1CustomResourceDefinition;
    const name = crd.metadata?.name ?? "";
    try {
      await api.createCustomResourceDefinition({ body: crd });
    } catch (err) {
      if (!isCode(err, 409)) throw err;
      const current = await api.readCustomResourceDefinition({ name });
      await api.replaceCustomResourceDefinition({
        name,
        body: { ...crd, metadata: { ...crd.metadata, resourceVersion: current.metadata?.resourceVersion } },
      });
    }
    await waitFor(
      `CRD ${name} established`,
      async () => {
        const c = await api.readCustomResourceDefinition({ name });
        return c.status?.conditions?.some((x) => x.type === "Established" && x.status === "True");
      },
      { intervalMs: 250 },
    );
  }
}

/** The chart's generated rules for a component. */
export function chartRules(component: "operator" | "api"): V1PolicyRule[] {
  return parse(
    readFileSync(join(REPO, "charts", "causeway", "files", "rbac", `${component}-rules.yaml`), "utf8"),
  ) as V1PolicyRule[];
}

/** A namespace with the chart's ServiceAccounts, Roles and RoleBindings (same rules as the chart). */
export async function setupNamespace(kc: KubeConfig, namespace: string): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  for (const sa of ["causeway-operator", "causeway-api", "causeway-runner"]) {
    await core.createNamespacedServiceAccount({
      namespace,
      body: { metadata: { name: sa, namespace }, automountServiceAccountToken: sa !== "causeway-runner" },
    });
  }
  for (const component of ["operator", "api"] as const) {
    const name = `causeway-${component}`;
    await rbac.createNamespacedRole({
      namespace,
      body: { metadata: { name, namespace }, rules: chartRules(component) },
    });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name, namespace },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
        subjects: [{ kind: "ServiceAccount", name, namespace }],
      },
    });
  }
}

/**
 * The fake runner the kubelet double runs instead of `node runner/src/main.ts`. Its behaviour is
 * encoded in the spec's model_version (`test-exit-<code>-sleep-<ms>`); it first checks the env
 * the operator must provide (the callback key as a file of the mounted Secret, never as env) and
 * exits 42 when something is missing.
 */
const FAKE_RUNNER = `
const env = process.env;
const spec = JSON.parse(env.CAUSEWAY_JOB_SPEC ?? "{}");
const key = env.CAUSEWAY_CALLBACK_KEY_FILE ? require("node:fs").readFileSync(env.CAUSEWAY_CALLBACK_KEY_FILE, "utf8") : "";
const ok = spec.kind && spec.job_id && env.CAUSEWAY_CALLBACK_URL && /^[0-9a-f]{64}$/.test(key) && !env.CAUSEWAY_CALLBACK_KEY && env.CAUSEWAY_ATTEMPT === env.HOSTNAME;
if (!ok) { console.error("bad env", Object.keys(env)); process.exit(42); }
const m = /^test-exit-(\\d+)-sleep-(\\d+)$/.exec(spec.model_version ?? "");
const [code, ms] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
setTimeout(() => process.exit(code), ms);
`;

/** resolveCommand for the kubelet double: the runner's command runs the fake runner. */
export function fakeRunnerCommand(node: string): (argv: readonly string[]) => readonly string[] {
  return (argv) => (argv.join(" ") === "node runner/src/main.ts" ? [node, "-e", FAKE_RUNNER] : argv);
}

/** A behaviour for the fake runner. */
export const behave = (exitCode: number, sleepMs = 300): string => `test-exit-${exitCode}-sleep-${sleepMs}`;

/** A Prediction whose fake runner exits with `exitCode` after `sleepMs`. */
export function testPrediction(
  namespace: string,
  modelVersion: string,
  spec: Partial<PredictionJobSpec> = {},
): PredictionResource {
  const id = randomUUID();
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: "Prediction",
    metadata: { name: id, namespace },
    spec: predictionSpec({
      job_id: id,
      model_version: modelVersion,
      output_prefix: `outputs/${id}/`,
      ...spec,
    }),
  };
}

/** Clients of one namespace. */
export function clients(kc: KubeConfig) {
  return {
    custom: kc.makeApiClient(CustomObjectsApi),
    batch: kc.makeApiClient(BatchV1Api),
    core: kc.makeApiClient(CoreV1Api),
  };
}

/** Creates a Prediction (as whoever `kc` authenticates). */
export async function createPrediction(kc: KubeConfig, r: PredictionResource): Promise<void> {
  await clients(kc).custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: r.metadata.namespace ?? "",
    plural: RESOURCES.prediction.plural,
    body: r,
  });
}

/** Reads a Prediction, or null. */
export async function getPrediction(
  kc: KubeConfig,
  namespace: string,
  name: string,
): Promise<PredictionResource | null> {
  try {
    const obj: unknown = await clients(kc).custom.getNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: RESOURCES.prediction.plural,
      name,
    });
    return obj as PredictionResource;
  } catch (err) {
    if (isCode(err, 404)) return null;
    throw err;
  }
}

/** Every Job the operator made for a resource (by label, across names). */
export async function jobsOf(kc: KubeConfig, namespace: string, name: string): Promise<V1Job[]> {
  const list = await clients(kc).batch.listNamespacedJob({
    namespace,
    labelSelector: `${LABELS.resource}=${name}`,
  });
  return list.items;
}

/** Waits for a Prediction to reach a phase. */
export function waitForPhase(
  kc: KubeConfig,
  namespace: string,
  name: string,
  phase: string,
  timeoutMs = 90_000,
): Promise<PredictionResource> {
  return waitFor(
    `${name} ${phase}`,
    async () => {
      const r = await getPrediction(kc, namespace, name);
      return r?.status?.phase === phase ? r : null;
    },
    { timeoutMs, intervalMs: 250 },
  );
}

/** Writes a kubeconfig for a bearer token against `server` (http or https). */
export function writeTokenKubeconfig(
  path: string,
  server: string,
  token: string,
  namespace: string,
  caData?: string,
): void {
  const cluster: Record<string, string | boolean> = { server };
  if (caData) cluster["certificate-authority-data"] = Buffer.from(caData).toString("base64");
  // client-node refuses plain http unless TLS verification is explicitly off.
  if (server.startsWith("http:")) cluster["insecure-skip-tls-verify"] = true;
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster }],
    users: [{ name: "u", user: { token } }],
    contexts: [{ name: "x", context: { cluster: "c", user: "u", namespace } }],
    "current-context": "x",
  };
  writeFileSync(path, JSON.stringify(config), { mode: 0o600 });
}

/** An operator child process. */
export interface OperatorProcess {
  proc: ChildProcess;
  port: number;
  logPath: string;
  /** Kills it (SIGKILL by default) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  metrics(): Promise<string>;
}

/** Starts `node operator/src/main.ts` with the given kubeconfig and extra env. */
/**
 * The operator's runtime settings as the chart sets them (`operator.nodeOptions`,
 * `operator.mallocArenaMax`): tests run what a cluster runs.
 */
function chartRuntimeEnv(): { NODE_OPTIONS: string; MALLOC_ARENA_MAX?: string } {
  const values = parse(readFileSync(join(REPO, "charts", "causeway", "values.yaml"), "utf8")) as {
    operator?: { nodeOptions?: string; mallocArenaMax?: number };
  };
  const arenas = values.operator?.mallocArenaMax;
  return {
    NODE_OPTIONS: values.operator?.nodeOptions ?? "",
    ...(arenas ? { MALLOC_ARENA_MAX: String(arenas) } : {}),
  };
}

export function startOperator(
  node: string,
  opts: {
    kubeconfigPath: string;
    namespace: string;
    port: number;
    logPath: string;
    env?: Record<string, string>;
  },
): OperatorProcess {
  const fd = openSync(opts.logPath, "a");
  const proc = spawn(node, [join(REPO, "operator", "src", "main.ts")], {
    cwd: REPO,
    stdio: ["ignore", fd, fd],
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      KUBECONFIG: opts.kubeconfigPath,
      POD_NAME: `operator-${randomUUID().slice(0, 8)}`,
      POD_NAMESPACE: opts.namespace,
      HTTP_PORT: String(opts.port),
      RUNNER_IMAGE: "causeway-runner:test",
      CAUSEWAY_CALLBACK_BASE_URL: "http://127.0.0.1:9",
      CAUSEWAY_CALLBACK_SECRET: "cluster-test-server-secret-of-32-chars-or-more",
      CAUSEWAY_STORAGE: "fs",
      CAUSEWAY_STORAGE_DIR: "/tmp/causeway-cluster-test",
      RUNNER_BACKOFF_LIMIT: "0",
      LEASE_DURATION_SECONDS: "4",
      RENEW_DEADLINE_SECONDS: "3",
      RETRY_PERIOD_SECONDS: "1",
      LOG_LEVEL: "debug",
      ...chartRuntimeEnv(),
      ...opts.env,
      NODE_OPTIONS: [chartRuntimeEnv().NODE_OPTIONS, opts.env?.NODE_OPTIONS ?? ""].join(" ").trim(),
    },
  });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  return {
    proc,
    port: opts.port,
    logPath: opts.logPath,
    async kill(signal: NodeJS.Signals = "SIGKILL") {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      await exited;
    },
    async metrics() {
      const res = await fetch(`http://127.0.0.1:${opts.port}/metrics`);
      return res.text();
    },
  };
}

/** Sum of a counter's samples whose line contains every `filter` string. */
export function metricSum(text: string, name: string, ...filter: string[]): number {
  return text
    .split("\n")
    .filter((l) => l.startsWith(name) && filter.every((f) => l.includes(f)))
    .reduce((s, l) => s + Number(l.split(" ").at(-1)), 0);
}

/** The resource (and subresource) a request path names: `/apis/g/v/namespaces/ns/jobs/x/status` → `jobs/status`. */
function resourceOf(path: string): string {
  const parts = path.split("/").filter(Boolean);
  const at = parts.indexOf("namespaces");
  const rest = at >= 0 && parts.length > at + 2 ? parts.slice(at + 2) : parts.slice(-1);
  return [rest[0], rest[2]].filter(Boolean).join("/");
}

/**
 * A plain-HTTP proxy in front of the API server that can break watches: `breakWatches()` cuts
 * every open watch stream, and every `goneEvery`-th watch that resumes from a resourceVersion
 * is answered with a 410 Expired event (what the apiserver sends when the version was compacted).
 */
export class WatchBreakingProxy {
  private server: Server | null = null;
  private readonly watches = new Set<ServerResponse>();
  private resumes = 0;
  port = 0;
  gone = 0;
  broken = 0;
  /**
   * Requests passed on, by "VERB[ watch] resource[/subresource]" (e.g. "GET watch jobs", "POST events",
   * "PATCH predictions/status"): what a client costs the API server, and on what.
   */
  readonly requests = new Map<string, number>();
  private readonly target: URL;
  private readonly agent: Agent;
  goneEvery: number;

  constructor(server: string, caData: string, goneEvery = 3) {
    this.target = new URL(server);
    this.agent = new Agent({ keepAlive: true, ca: caData });
    this.goneEvery = goneEvery;
  }

  async start(): Promise<number> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    const addr = this.server.address();
    this.port = typeof addr === "object" && addr ? addr.port : 0;
    return this.port;
  }

  breakWatches(): void {
    for (const res of this.watches) {
      res.destroy();
      this.broken += 1;
    }
    this.watches.clear();
  }

  async stop(): Promise<void> {
    this.breakWatches();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
    this.agent.destroy();
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", "http://proxy");
    const isWatch = url.searchParams.get("watch") === "true";
    const key = `${req.method ?? "GET"}${isWatch ? " watch" : ""} ${resourceOf(url.pathname)}`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    if (isWatch && url.searchParams.get("resourceVersion")) {
      this.resumes += 1;
      if (this.resumes % this.goneEvery === 0) {
        this.gone += 1;
        res.writeHead(200, { "content-type": "application/json" });
        const status = {
          kind: "Status",
          apiVersion: "v1",
          status: "Failure",
          message: "too old resource version",
          reason: "Expired",
          code: 410,
        };
        res.end(`${JSON.stringify({ type: "ERROR", object: status })}\n`);
        return;
      }
    }
    const headers = { ...req.headers, host: this.target.host };
    const upstream = httpsRequest(
      {
        host: this.target.hostname,
        port: this.target.port,
        path: req.url,
        method: req.method,
        headers,
        agent: this.agent,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        if (isWatch) {
          this.watches.add(res);
          res.once("close", () => {
            this.watches.delete(res);
            up.destroy();
          });
        }
        up.pipe(res);
      },
    );
    upstream.once("error", () => res.destroy());
    req.pipe(upstream);
  }
}

/** What an operator test starts from: admin access, a temp dir, the CRDs, a prepared namespace. */
export interface OperatorTestEnv {
  kube: ReturnType<typeof injectKube>;
  admin: KubeConfig;
  tmp: TempDir;
  /** Kubeconfig and token of the operator's ServiceAccount (the chart's RBAC, not admin). */
  sa: Awaited<ReturnType<typeof serviceAccountKubeconfig>>;
}

/** The CRDs, a namespace with the chart's RBAC, and the operator ServiceAccount's kubeconfig. */
export async function operatorTestEnv(label: string, namespace: string): Promise<OperatorTestEnv> {
  const kube = injectKube();
  const admin = loadKubeConfig(kube);
  const tmp = await makeTempDir(label);
  await applyCrds(admin);
  await setupNamespace(admin, namespace);
  const sa = await serviceAccountKubeconfig(kube, {
    namespace,
    name: "causeway-operator",
    path: join(tmp.path, "sa.kubeconfig"),
  });
  return { kube, admin, tmp, sa };
}

/**
 * One operator test's environment on the shared control plane: its namespace, the kubelet double
 * and operator processes it started, and whatever else a test hands it, all stopped by
 * `teardown()` (last started, first stopped), which then deletes the namespace and the temp dir.
 */
export class OperatorCluster {
  readonly namespace: string;
  readonly kube: ReturnType<typeof injectKube>;
  readonly admin: KubeConfig;
  readonly tmp: TempDir;
  private readonly operatorSa: OperatorTestEnv["sa"] | null;
  private readonly stops: (() => Promise<void> | void)[] = [];
  private operators = 0;

  private constructor(namespace: string, env: Omit<OperatorTestEnv, "sa">, sa: OperatorTestEnv["sa"] | null) {
    this.namespace = namespace;
    this.kube = env.kube;
    this.admin = env.admin;
    this.tmp = env.tmp;
    this.operatorSa = sa;
  }

  /** The operator ServiceAccount's access (the chart's rules), unless started with `chartRbac: false`. */
  get operatorAccess(): OperatorTestEnv["sa"] {
    if (!this.operatorSa) throw new Error("started without the chart's RBAC: no operator ServiceAccount");
    return this.operatorSa;
  }

  /**
   * The CRDs and `namespace`, with the chart's ServiceAccounts and RBAC unless `chartRbac` is
   * false (a test that installs the chart's own).
   */
  static async start(
    label: string,
    namespace: string,
    options: { chartRbac?: boolean } = {},
  ): Promise<OperatorCluster> {
    if (options.chartRbac !== false) {
      const env = await operatorTestEnv(label, namespace);
      return new OperatorCluster(namespace, env, env.sa);
    }
    const kube = injectKube();
    const admin = loadKubeConfig(kube);
    const tmp = await makeTempDir(label);
    await applyCrds(admin);
    await clients(admin).core.createNamespace({ body: { metadata: { name: namespace } } });
    return new OperatorCluster(namespace, { kube, admin, tmp }, null);
  }

  /** Kubeconfig of a ServiceAccount of the namespace. */
  serviceAccount(name: string): Promise<OperatorTestEnv["sa"]> {
    return serviceAccountKubeconfig(this.kube, {
      namespace: this.namespace,
      name,
      path: join(this.tmp.path, `${name}.kubeconfig`),
    });
  }

  /** The kubelet double for the namespace, running the fake runner. */
  async startKubelet(options: Partial<KubeletDoubleOptions> = {}): Promise<KubeletDouble> {
    const kubelet = await startKubeletDouble({
      kubeconfigPath: this.kube.kubeconfigPath,
      namespace: this.namespace,
      resolveCommand: fakeRunnerCommand(projectNode()),
      ...options,
    });
    this.onTeardown(() => kubelet.stop());
    return kubelet;
  }

  /** An operator process, as the operator ServiceAccount unless `kubeconfigPath` says otherwise. */
  async startOperator(
    options: { kubeconfigPath?: string; env?: Record<string, string> } = {},
  ): Promise<OperatorProcess> {
    const kubeconfigPath = options.kubeconfigPath ?? this.operatorAccess?.kubeconfigPath;
    if (!kubeconfigPath)
      throw new Error("no operator kubeconfig: start with chartRbac or pass kubeconfigPath");
    this.operators += 1;
    const operator = startOperator(projectNode(), {
      kubeconfigPath,
      namespace: this.namespace,
      port: await freePort(),
      logPath: join(this.tmp.path, `operator-${this.operators}.log`),
      env: options.env,
    });
    this.onTeardown(() => operator.kill("SIGTERM"));
    return operator;
  }

  /** Something else to stop at teardown (a proxy, a timer). */
  onTeardown(stop: () => Promise<void> | void): void {
    this.stops.push(stop);
  }

  /** Stops everything in reverse order, then deletes the namespace and the temp dir. */
  async teardown(): Promise<void> {
    const errors: unknown[] = [];
    for (const stop of this.stops.splice(0).reverse()) {
      try {
        await stop();
      } catch (err) {
        errors.push(err);
      }
    }
    await clients(this.admin)
      .core.deleteNamespace({ name: this.namespace })
      .catch(() => undefined);
    await this.tmp.remove();
    if (errors.length > 0) throw new AggregateError(errors, "operator cluster teardown failed");
  }
}
