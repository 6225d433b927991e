/**
 * A TEST DOUBLE FOR THE KUBELET. The test control plane has no nodes, no scheduler and no container
 * runtime, so Pods would stay Pending forever. This double watches the Pods of one namespace and, for
 * each new one, runs its first container's command + args as a LOCAL PROCESS (with the Pod's env,
 * Secrets and ConfigMaps resolved through the API), then writes the Pod status through the
 * pods/status subresource: Running, then Succeeded or Failed with the exit code. The real Job
 * controller then completes or fails the Job exactly as on a cluster.
 *
 * Secret volumes are written as files under the pod's folder, and env values and arguments naming a
 * path in a mount are rewritten to it (the process sees the host's filesystem).
 *
 * Not emulated: images (the command runs from the repository checkout), other volumes, resource
 * limits, probes, init and sidecar containers, restartPolicy OnFailure, pod-level activeDeadlineSeconds.
 *
 * Images, limits, OOM kills, image pulls and deadlines are shown on a real node (kube/node.ts,
 * test/cluster/real-node.test.ts). This double stays for what a real node cannot produce on demand
 * or cheaply: evictions and preemptions (DisruptionTarget), chosen exit codes and timings of a fake
 * runner, pods that never leave Pending, and hundreds of pods at once in the operator's scale runs.
 */
import { CoreV1Api, Watch, type V1Container, type V1Pod } from "@kubernetes/client-node";
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { makeTempDir, waitFor, type TempDir } from "./proc.ts";
import { projectNode, repoRoot } from "./repo.ts";
import { loadKubeConfig } from "./kube/service-account.ts";
import { ContainerConfigError, expandReferences, resolveContainerEnv } from "./kubelet-double/env.ts";
import { localPath, materializeSecretVolumes } from "./kubelet-double/secret-volumes.ts";
import { podStatusFor, type ContainerOutcome } from "./kubelet-double/status.ts";

/**
 * Pod annotation that makes the double report this termination reason for a non-zero exit, e.g.
 * `OOMKilled` (with exit code 137 from the process, as the kernel's OOM killer would give).
 */
export const TERMINATION_REASON_ANNOTATION = "kubelet-double.causeway.test/termination-reason";

/** Options of {@link startKubeletDouble}. */
export interface KubeletDoubleOptions {
  /** Kubeconfig the double acts with; it needs get/list/watch pods, update pods/status, get secrets and configmaps. */
  kubeconfigPath: string;
  /** Only Pods of this namespace are run. */
  namespace: string;
  /** Working directory of the processes (an image's WORKDIR); default: the repository root. */
  cwd?: string;
  /**
   * Maps a container's argv (command + args, after $(VAR) expansion) to the local program. Default:
   * `node ...` runs the project's Node 24 (node_modules/.bin/node); anything else runs as given.
   */
  resolveCommand?: (argv: readonly string[], container: V1Container, pod: V1Pod) => readonly string[];
  /** Variables every process gets in addition to the Pod's env (default: PATH, HOME, TMPDIR, LANG). */
  baseEnv?: Record<string, string>;
  /** Where per-pod logs go (`<pod>.log`); default: a temp dir removed on stop(). */
  logDir?: string;
  /** Decides the termination reason; default: the annotation, else "Completed" (exit 0) or "Error". */
  terminationReason?: (exitCode: number, pod: V1Pod) => string;
}

/** What happened to one Pod. */
export interface PodRun {
  readonly name: string;
  readonly uid: string;
  /** stdout + stderr of the process. */
  readonly logPath: string;
  /** Resolves once the terminal status has been written (or the Pod was deleted). */
  readonly finished: Promise<{ exitCode: number | null; reason: string }>;
}

/** A running kubelet double. */
export interface KubeletDouble {
  /** Runs by pod name (the latest Pod of that name). */
  readonly runs: ReadonlyMap<string, PodRun>;
  /** Waits until a Pod with this name has been run to completion by the double. */
  waitForPod(name: string, timeoutMs?: number): Promise<{ exitCode: number | null; reason: string }>;
  /** Stops watching and kills the processes still running. */
  stop(): Promise<void>;
}

function defaultResolve(argv: readonly string[]): readonly string[] {
  const [program, ...rest] = argv;
  if (program === "node" || program?.endsWith("/node")) return [projectNode(), ...rest];
  return argv;
}

function defaultReason(exitCode: number, pod: V1Pod): string {
  if (exitCode === 0) return "Completed";
  return pod.metadata?.annotations?.[TERMINATION_REASON_ANNOTATION] ?? "Error";
}

/** Starts the double; it keeps running Pods of `namespace` until stop(). */
export async function startKubeletDouble(options: KubeletDoubleOptions): Promise<KubeletDouble> {
  const kc = loadKubeConfig(options);
  const core = kc.makeApiClient(CoreV1Api);
  const { namespace } = options;
  const ownTemp: TempDir | undefined = options.logDir ? undefined : await makeTempDir("kubelet-double");
  const logDir = options.logDir ?? ownTemp?.path ?? ".";
  const resolveCommand = options.resolveCommand ?? defaultResolve;
  const reasonFor = options.terminationReason ?? defaultReason;
  const baseEnv: Record<string, string> = options.baseEnv ?? {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    TMPDIR: process.env.TMPDIR ?? "/tmp",
    LANG: "C.UTF-8",
  };

  const seen = new Set<string>(); // pod uids already taken on
  const deleted = new Set<string>(); // pod uids gone from the API
  const kills = new Map<string, (graceSeconds: number) => void>();
  const runs = new Map<string, PodRun>();
  let stopped = false;
  let abort: AbortController | undefined;

  /** Writes the status, re-reading the Pod on conflicts (the Job controller edits Pods too). */
  const writeStatus = async (name: string, outcome: ContainerOutcome): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      const current = await core.readNamespacedPod({ name, namespace });
      try {
        await core.replaceNamespacedPodStatus({
          name,
          namespace,
          body: { ...current, status: podStatusFor(current, outcome) },
        });
        return;
      } catch (error) {
        const code =
          typeof error === "object" && error !== null && "code" in error
            ? (error as { code: unknown }).code
            : undefined;
        if (code !== 409 || attempt >= 20) throw error;
      }
    }
  };

  const runPod = async (pod: V1Pod): Promise<{ exitCode: number | null; reason: string }> => {
    const name = pod.metadata?.name ?? "";
    const uid = pod.metadata?.uid ?? "";
    const container = pod.spec?.containers[0];
    if (!container) throw new Error(`pod ${name} has no container`);
    // Like the kubelet: a missing Secret/ConfigMap keeps the container waiting and is retried.
    let env: Record<string, string>;
    for (;;) {
      try {
        env = await resolveContainerEnv(core, pod, container);
        break;
      } catch (error) {
        if (!(error instanceof ContainerConfigError)) throw error;
        await writeStatus(name, {
          kind: "waiting",
          reason: "CreateContainerConfigError",
          message: error.message,
        });
        await sleep(1_000);
        if (stopped || deleted.has(uid)) return { exitCode: null, reason: "Deleted" };
      }
    }
    // Secret volumes become files in the pod's folder; env values naming a path in them follow.
    // Like the kubelet's volume manager: a Secret that does not exist yet (its creator makes it
    // just after the pod's Job) fails the mount, which is retried; the pod stays ContainerCreating.
    let mounts: Awaited<ReturnType<typeof materializeSecretVolumes>>;
    for (;;) {
      try {
        mounts = await materializeSecretVolumes(core, pod, container, join(logDir, `${name}-volumes`));
        break;
      } catch (error) {
        if (!(error instanceof ContainerConfigError)) throw error;
        await sleep(500);
        if (stopped || deleted.has(uid)) return { exitCode: null, reason: "Deleted" };
      }
    }
    env = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, localPath(v, mounts)]));
    const argv = [...(container.command ?? []), ...(container.args ?? [])].map((part) =>
      localPath(expandReferences(part, env), mounts),
    );
    if (argv.length === 0)
      throw new Error(
        `pod ${name}: container ${container.name} has no command; the double cannot know the image's entrypoint (pass resolveCommand)`,
      );
    const [program, ...args] = resolveCommand(argv, container, pod);
    if (program === undefined) throw new Error(`pod ${name}: resolveCommand returned an empty argv`);

    const startedAt = new Date();
    await writeStatus(name, { kind: "running", startedAt });
    const logFd = openSync(join(logDir, `${name}.log`), "a");
    const child = spawn(program, args, {
      cwd: options.cwd ?? repoRoot,
      env: { ...baseEnv, HOSTNAME: name, ...env },
      stdio: ["ignore", logFd, logFd],
    });
    closeSync(logFd);
    kills.set(uid, (graceSeconds) => {
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), graceSeconds * 1_000).unref();
    });
    const exitCode = await new Promise<number>((resolve) => {
      child.once("error", (error) => {
        process.stderr.write(`[kubelet-double] ${name}: cannot start ${program}: ${error.message}\n`);
        resolve(127);
      });
      // A signal death is reported as 128 + signal number, as container runtimes do.
      child.once("exit", (code, signal) => resolve(code ?? 128 + (signal === "SIGKILL" ? 9 : 15)));
    });
    kills.delete(uid);
    if (deleted.has(uid) || stopped) return { exitCode, reason: "Deleted" };
    const reason = reasonFor(exitCode, pod);
    await writeStatus(name, { kind: "terminated", startedAt, finishedAt: new Date(), exitCode, reason });
    return { exitCode, reason };
  };

  const takeOn = (pod: V1Pod): void => {
    const uid = pod.metadata?.uid;
    const name = pod.metadata?.name;
    if (!uid || !name || seen.has(uid) || pod.metadata?.deletionTimestamp) return;
    if ((pod.status?.phase ?? "Pending") !== "Pending") return;
    seen.add(uid);
    const finished = runPod(pod).catch((error: unknown) => {
      process.stderr.write(
        `[kubelet-double] ${name}: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      return { exitCode: null, reason: "KubeletDoubleError" };
    });
    runs.set(name, { name, uid, logPath: join(logDir, `${name}.log`), finished });
  };

  const onEvent = (phase: string, object: unknown): void => {
    const pod = object as V1Pod;
    const uid = pod.metadata?.uid ?? "";
    if (phase === "DELETED" || pod.metadata?.deletionTimestamp) {
      deleted.add(uid);
      kills.get(uid)?.(pod.spec?.terminationGracePeriodSeconds ?? 30);
      return;
    }
    if (phase === "ADDED" || phase === "MODIFIED") takeOn(pod);
  };

  // List, then watch from the list's resourceVersion; after any watch end, list again, so no Pod is
  // missed across reconnects (taking on a Pod is idempotent by uid).
  const startWatch = async (): Promise<void> => {
    if (stopped) return;
    try {
      const list = await core.listNamespacedPod({ namespace });
      for (const pod of list.items) takeOn(pod);
      abort = await new Watch(kc).watch(
        `/api/v1/namespaces/${namespace}/pods`,
        { resourceVersion: list.metadata?.resourceVersion, allowWatchBookmarks: true },
        onEvent,
        () => {
          if (!stopped) setTimeout(() => void startWatch(), 200);
        },
      );
    } catch (error) {
      if (stopped) return;
      process.stderr.write(
        `[kubelet-double] watch failed, retrying: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      setTimeout(() => void startWatch(), 1_000);
    }
  };
  await startWatch();

  return {
    runs,
    async waitForPod(
      name: string,
      timeoutMs = 120_000,
    ): Promise<{ exitCode: number | null; reason: string }> {
      const run = await waitFor(`kubelet double: pod ${namespace}/${name}`, async () => runs.get(name), {
        timeoutMs,
      });
      return run.finished;
    },
    async stop(): Promise<void> {
      stopped = true;
      abort?.abort();
      for (const kill of kills.values()) kill(2);
      await Promise.allSettled([...runs.values()].map((run) => run.finished));
      await ownTemp?.remove();
    },
  };
}
