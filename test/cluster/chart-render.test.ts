/**
 * The Helm chart as `helm template` renders it, with no cluster: which env the operator gets, who
 * the API's NetworkPolicy admits, the images of each component, when the PodDisruptionBudget is
 * made, what the Ingress routes, and the values the chart refuses before anything is applied.
 * (operator-chart.test.ts applies the rendered objects to a control plane.)
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { KubernetesObject, V1EnvVar, V1LabelSelector, V1PodSpec } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { findHelm } from "../harness/kube/binaries.ts";
import { repoRoot as REPO } from "../harness/repo.ts";

const run = promisify(execFile);
const helm = inject("helmPath") ?? findHelm();
const namespace = "causeway";
const release = "rel";
let dir: string;

interface Obj extends KubernetesObject {
  spec?: Record<string, unknown>;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "chart-render-"));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

let files = 0;
/** `helm template` with `values` as a values file; rejects with helm's message. */
async function render(values: Record<string, unknown> = {}): Promise<Obj[]> {
  const file = join(dir, `values-${files++}.json`);
  await writeFile(file, JSON.stringify(values));
  const args = ["template", release, join(REPO, "charts", "causeway"), "-n", namespace, "-f", file];
  const { stdout } = await run(helm ?? "helm", args, { maxBuffer: 16 * 1024 * 1024 }).catch(
    (e: { stderr?: string }) => {
      throw new Error(e.stderr ?? String(e));
    },
  );
  return parseAllDocuments(stdout)
    .map((d) => d.toJSON() as Obj | null)
    .filter((d): d is Obj => d !== null);
}

const named = (objs: Obj[], kind: string, name: string): Obj | undefined =>
  objs.find((o) => o.kind === kind && o.metadata?.name === name);
const podSpec = (o: Obj | undefined): V1PodSpec => (o?.spec?.template as { spec: V1PodSpec }).spec;
const operatorEnv = (objs: Obj[]): V1EnvVar[] =>
  podSpec(named(objs, "Deployment", `${release}-causeway-operator`)).containers[0]?.env ?? [];
const envValue = (env: V1EnvVar[], name: string): string | undefined =>
  env.find((e) => e.name === name)?.value;

// CI builds helm (.ci/run): there a missing helm is a failure, never a silent skip.
if (helm === undefined && process.env.CI) throw new Error("helm is missing: .ci/run should have built it");

describe.skipIf(helm === undefined)("chart rendering", () => {
  describe("image pull secrets", () => {
    it("reach runner pods: the operator gets their names in RUNNER_IMAGE_PULL_SECRETS", async () => {
      const objs = await render({ imagePullSecrets: [{ name: "regcred" }, { name: "mirror" }] });
      expect(envValue(operatorEnv(objs), "RUNNER_IMAGE_PULL_SECRETS")).toBe("regcred,mirror");
      for (const o of objs.filter((x) => x.kind === "Deployment" || x.kind === "Job"))
        expect(podSpec(o).imagePullSecrets, o.metadata?.name).toEqual([
          { name: "regcred" },
          { name: "mirror" },
        ]);
    });

    it("leave RUNNER_IMAGE_PULL_SECRETS out when there are none", async () => {
      const env = operatorEnv(await render());
      expect(env.some((e) => e.name === "RUNNER_IMAGE_PULL_SECRETS")).toBe(false);
    });
  });

  describe("the API's NetworkPolicy", () => {
    interface Source {
      namespace: string;
      namespaceLabels: Record<string, string>;
      podLabels: Record<string, string>;
    }
    /** A NetworkPolicy as YAML spells it (client-node's type calls `from` `_from`). */
    interface Policy {
      spec: {
        ingress: {
          ports?: { port: string }[];
          from?: { namespaceSelector?: V1LabelSelector; podSelector?: V1LabelSelector; ipBlock?: unknown }[];
        }[];
      };
    }
    const matchLabels = (sel: Record<string, string> | undefined, labels: Record<string, string>) =>
      Object.entries(sel ?? {}).every(([k, v]) => labels[k] === v);
    /** Whether `policy` admits a connection from `src` to `port` (matchLabels selectors, as the chart writes them). */
    const admits = (policy: Policy, src: Source, port: string): boolean =>
      policy.spec.ingress.some(
        (rule) =>
          (rule.ports ?? []).some((p) => p.port === port) &&
          (rule.from ?? []).some((peer) => {
            if (peer.ipBlock) return false;
            const nsOk = peer.namespaceSelector
              ? matchLabels(peer.namespaceSelector.matchLabels, src.namespaceLabels) &&
                (peer.namespaceSelector.matchExpressions ?? []).length === 0
              : src.namespace === namespace;
            return (
              nsOk && (peer.podSelector ? matchLabels(peer.podSelector.matchLabels, src.podLabels) : true)
            );
          }),
      );
    const policyOf = async (values: Record<string, unknown> = {}) =>
      named(await render(values), "NetworkPolicy", `${release}-causeway-api`) as unknown as Policy;
    const here = { namespace, namespaceLabels: { "kubernetes.io/metadata.name": namespace } };
    const operatorPod = {
      ...here,
      podLabels: {
        "app.kubernetes.io/name": "causeway",
        "app.kubernetes.io/instance": release,
        "app.kubernetes.io/component": "operator",
        "pod-template-hash": "abc",
      },
    };
    const runnerPod = {
      ...here,
      podLabels: {
        "app.kubernetes.io/name": "causeway-runner",
        "app.kubernetes.io/managed-by": "causeway-operator",
        "causeway.io/kind": "prediction",
      },
    };
    const ingressPod = {
      namespace: "ingress-nginx",
      namespaceLabels: { "kubernetes.io/metadata.name": "ingress-nginx", edge: "true" },
      podLabels: { "app.kubernetes.io/name": "ingress-nginx" },
    };
    const strangerPod = {
      namespace: "elsewhere",
      namespaceLabels: { "kubernetes.io/metadata.name": "elsewhere" },
      podLabels: { "app.kubernetes.io/name": "causeway", "app.kubernetes.io/component": "operator" },
    };

    it("admits the operator's failure callbacks when a namespace selector is set", async () => {
      const policy = await policyOf({
        networkPolicy: { ingressNamespaceSelector: { matchLabels: { edge: "true" } } },
      });
      expect(admits(policy, operatorPod, "http")).toBe(true);
      expect(admits(policy, runnerPod, "http")).toBe(true);
      expect(admits(policy, ingressPod, "http")).toBe(true);
      expect(admits(policy, ingressPod, "metrics")).toBe(true);
      // Callbacks need the http port only, and only from this namespace.
      expect(admits(policy, operatorPod, "metrics")).toBe(false);
      expect(admits(policy, runnerPod, "metrics")).toBe(false);
      expect(admits(policy, strangerPod, "http")).toBe(false);
    });

    it("with the default empty selector admits every pod of every namespace on http and metrics", async () => {
      const policy = await policyOf();
      for (const pod of [operatorPod, runnerPod, ingressPod, strangerPod]) {
        expect(admits(policy, pod, "http")).toBe(true);
        expect(admits(policy, pod, "metrics")).toBe(true);
      }
      expect(policy.spec.ingress[0]?.from).toEqual([{ namespaceSelector: {} }]);
    });

    it("refuses a flat label map as the namespace selector, saying to use matchLabels", async () => {
      await expect(
        render({
          networkPolicy: { ingressNamespaceSelector: { "kubernetes.io/metadata.name": "ingress-nginx" } },
        }),
      ).rejects.toThrow(/ingressNamespaceSelector.*LabelSelector.*matchLabels/);
    });
  });

  describe("images", () => {
    const imagesOf = (objs: Obj[]) => ({
      api: podSpec(named(objs, "Deployment", `${release}-causeway-api`)).containers[0]?.image,
      operator: podSpec(named(objs, "Deployment", `${release}-causeway-operator`)).containers[0]?.image,
      runner: envValue(operatorEnv(objs), "RUNNER_IMAGE"),
      migrate: podSpec(named(objs, "Job", `${release}-causeway-migrate`)).containers[0]?.image,
    });

    it("default to the three images the build produces, the migrations running the API's", async () => {
      expect(imagesOf(await render())).toEqual({
        api: "ghcr.io/causeway/api:0.1.0",
        operator: "ghcr.io/causeway/operator:0.1.0",
        runner: "ghcr.io/causeway/runner:0.1.0",
        migrate: "ghcr.io/causeway/api:0.1.0",
      });
    });

    it("pin each component by its own digest, under the shared registry and tag", async () => {
      const digest = (c: string) => `sha256:${c.repeat(64)}`;
      const objs = await render({
        image: { registry: "registry.example.com", tag: "1.2.3" },
        api: { image: { digest: digest("a") } },
        operator: { image: { digest: digest("b") } },
        runner: { image: { tag: "1.2.4" } },
      });
      expect(imagesOf(objs)).toEqual({
        api: `registry.example.com/causeway/api@${digest("a")}`,
        operator: `registry.example.com/causeway/operator@${digest("b")}`,
        runner: "registry.example.com/causeway/runner:1.2.4",
        migrate: `registry.example.com/causeway/api@${digest("a")}`,
      });
    });

    it("refuse the removed global image.digest", async () => {
      await expect(render({ image: { digest: `sha256:${"a".repeat(64)}` } })).rejects.toThrow(/digest/);
    });
  });

  describe("PodDisruptionBudget", () => {
    const pdb = async (api: Record<string, unknown>) =>
      (await render({ api })).find((o) => o.kind === "PodDisruptionBudget");

    it("is made by default only when more than one API replica runs (one replica would block every drain)", async () => {
      expect(await pdb({})).toBeDefined();
      expect(await pdb({ replicaCount: 1 })).toBeUndefined();
      expect(await pdb({ replicaCount: 3, pdb: { minAvailable: 3 } })).toBeUndefined();
      expect((await pdb({ replicaCount: 3, pdb: { minAvailable: 2 } }))?.spec?.minAvailable).toBe(2);
    });

    it("follows an explicit create: true or false", async () => {
      expect(await pdb({ replicaCount: 1, pdb: { create: true } })).toBeDefined();
      expect(await pdb({ replicaCount: 3, pdb: { create: false } })).toBeUndefined();
    });
  });

  describe("finished resources", () => {
    it("are kept 7 days by default, RESOURCE_TTL_SECONDS_AFTER_FINISHED on the operator", async () => {
      expect(envValue(operatorEnv(await render()), "RESOURCE_TTL_SECONDS_AFTER_FINISHED")).toBe("604800");
      const thirtyDays = operatorEnv(
        await render({ operator: { resourceTtlSecondsAfterFinished: 2592000 } }),
      );
      expect(envValue(thirtyDays, "RESOURCE_TTL_SECONDS_AFTER_FINISHED")).toBe("2592000");
      const forever = operatorEnv(await render({ operator: { resourceTtlSecondsAfterFinished: 0 } }));
      expect(envValue(forever, "RESOURCE_TTL_SECONDS_AFTER_FINISHED")).toBe("0");
      await expect(render({ operator: { resourceTtlSecondsAfterFinished: -1 } })).rejects.toThrow(
        /resourceTtlSecondsAfterFinished/,
      );
    });
  });

  describe("values refused before anything is applied", () => {
    it.each([
      ["a memory limit in GB", { runner: { resources: { limits: { memory: "4GB" } } } }, /memory/],
      ["a bad /tmp size", { api: { tmpSizeLimit: "4 GiB" } }, /tmpSizeLimit/],
      ["an empty bucket", { s3: { bucket: "" } }, /bucket/],
      ["port 0", { api: { containerPort: 0 } }, /containerPort/],
      ["port 65536", { operator: { containerPort: 65536 } }, /containerPort/],
      ["an empty callback secret key", { callbacks: { secretKey: "" } }, /secretKey/],
      ["a scrape interval without a unit", { metrics: { serviceMonitor: { interval: "30" } } }, /interval/],
    ])("%s", async (_name, values, message) => {
      await expect(render(values)).rejects.toThrow(message);
    });

    it("a lease that does not outlast its renew deadline, or a deadline shorter than the retry period", async () => {
      await expect(
        render({ operator: { leaderElection: { leaseDurationSeconds: 10, renewDeadlineSeconds: 10 } } }),
      ).rejects.toThrow(/leaseDurationSeconds \(10\) must be greater than renewDeadlineSeconds \(10\)/);
      await expect(
        render({ operator: { leaderElection: { renewDeadlineSeconds: 2, retryPeriodSeconds: 5 } } }),
      ).rejects.toThrow(/renewDeadlineSeconds greater than retryPeriodSeconds/);
      // Without leader election the timings are unused.
      await expect(
        render({ operator: { leaderElection: { enabled: false, renewDeadlineSeconds: 20 } } }),
      ).resolves.toBeDefined();
    });
  });

  describe("the Ingress", () => {
    const routes = (objs: Obj[]) =>
      objs
        .filter((o) => o.kind === "Ingress")
        .flatMap((o) =>
          (o.spec?.rules as { http: { paths: { path: string; pathType: string }[] } }[]).flatMap((r) =>
            r.http.paths.map((p) => ({ ingress: o.metadata?.name, path: p.path, pathType: p.pathType })),
          ),
        );

    it("routes the API, its OpenAPI document and reference, and the web app, never /internal or /metrics", async () => {
      const objs = await render({ api: { ingress: { enabled: true } } });
      const api = `${release}-causeway-api`;
      expect(routes(objs)).toEqual([
        { ingress: api, path: "/v1", pathType: "Prefix" },
        { ingress: api, path: "/health", pathType: "Prefix" },
        { ingress: api, path: "/openapi.json", pathType: "Exact" },
        { ingress: `${api}-web`, path: "/app", pathType: "Prefix" },
        { ingress: `${api}-web`, path: "/docs", pathType: "Prefix" },
        { ingress: `${api}-web`, path: "/", pathType: "Exact" },
      ]);
      for (const r of routes(objs)) expect(r.path).not.toMatch(/^\/(internal|metrics|readyz|livez)/);
    });

    it("puts the edge limit on the API's routes, not on the web app's files (the API exempts them too)", async () => {
      const objs = await render({ api: { ingress: { enabled: true, annotations: { team: "x" } } } });
      const api = named(objs, "Ingress", `${release}-causeway-api`);
      const web = named(objs, "Ingress", `${release}-causeway-api-web`);
      expect(api?.metadata?.annotations?.["nginx.ingress.kubernetes.io/limit-rpm"]).toBe("30");
      expect(web?.metadata?.annotations).toEqual({ team: "x" });
    });
  });
});
