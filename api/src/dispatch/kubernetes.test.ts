import { describe, expect, it } from "vitest";
import { pino } from "pino";
import { aCausalAnalysis, aPrediction, JOB_ID } from "../../../test/builders/prediction.ts";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PooledKubeConfig } from "@causeway/contract/kube";
import { HttpMethod, RequestContext } from "@kubernetes/client-node";
import { KubernetesDispatcher, apiServerConfig, toReported, type ResourceClient } from "./kubernetes.ts";
import type { MirroredStatus } from "./dispatcher.ts";

class FakeClient implements ResourceClient {
  created: { namespace: string; plural: string; body: Record<string, unknown> }[] = [];
  applied: { plural: string; name: string; body: { status: { reported: unknown } } }[] = [];
  failCreate: number[] = [];
  failApply: number[] = [];

  async create(namespace: string, plural: string, body: object): Promise<void> {
    const code = this.failCreate.shift();
    if (code !== undefined) throw Object.assign(new Error(`HTTP ${code}`), { code });
    this.created.push({ namespace, plural, body: body as Record<string, unknown> });
  }

  async applyStatus(_ns: string, plural: string, name: string, body: object): Promise<void> {
    const code = this.failApply.shift();
    if (code !== undefined) throw Object.assign(new Error(`HTTP ${code}`), { code });
    this.applied.push({ plural, name, body: body as { status: { reported: unknown } } });
  }
}

const log = pino({ level: "silent" });
const make = (client: FakeClient) =>
  new KubernetesDispatcher({
    client,
    namespace: "ns",
    log,
    retryDelaysMs: [1, 1, 1],
    sleep: async () => undefined,
  });
const status = (s: Partial<MirroredStatus> = {}): MirroredStatus => ({
  status: "processing",
  processing_step: "model_loaded",
  progress_pct: 45,
  error_code: null,
  error_message: null,
  ...s,
});

describe("KubernetesDispatcher.dispatch", () => {
  it("creates a Prediction named after the job id, carrying the job spec and the trace context", async () => {
    const client = new FakeClient();
    const spec = aPrediction().build().spec;
    await make(client).dispatch(spec, { traceparent: "00-aa-bb-01" });
    expect(client.created).toHaveLength(1);
    const { plural, body } = client.created[0]!;
    expect(plural).toBe("predictions");
    expect(body).toMatchObject({
      apiVersion: "causeway.io/v1",
      kind: "Prediction",
      metadata: { name: JOB_ID, namespace: "ns", annotations: { "causeway.io/traceparent": "00-aa-bb-01" } },
      spec,
    });
  });

  it("treats 409 AlreadyExists as success and retries transient errors", async () => {
    const client = new FakeClient();
    client.failCreate = [409];
    await make(client).dispatch(aCausalAnalysis().spec, {});
    client.failCreate = [503, 500];
    await make(client).dispatch(aCausalAnalysis().spec, {});
    expect(client.created.map((c) => c.plural)).toEqual(["causalanalyses"]);
  });

  it("fails on a permanent error, so the caller can fail the job", async () => {
    const client = new FakeClient();
    client.failCreate = [422];
    await expect(make(client).dispatch(aPrediction().build().spec, {})).rejects.toThrow("HTTP 422");
  });
});

describe("KubernetesDispatcher.mirrorStatus", () => {
  it("applies status.reported only, retrying through failures", async () => {
    const client = new FakeClient();
    client.failApply = [500, 429];
    const d = make(client);
    await d.mirrorStatus({ kind: "prediction", job_id: JOB_ID }, status());
    await d.close();
    expect(client.applied).toHaveLength(1);
    expect(client.applied[0]?.body.status).toEqual({
      reported: {
        status: "processing",
        processingStep: "model_loaded",
        progressPct: 45,
        errorCode: null,
        errorMessage: null,
      },
    });
  });

  it("coalesces to the latest status of a job", async () => {
    const client = new FakeClient();
    const d = make(client);
    const job = { kind: "prediction" as const, job_id: JOB_ID };
    await d.mirrorStatus(job, status({ progress_pct: 10 }));
    await d.mirrorStatus(job, status({ progress_pct: 20 }));
    await d.mirrorStatus(job, status({ status: "completed", progress_pct: 100 }));
    await d.close();
    expect(client.applied.at(-1)?.body.status).toMatchObject({
      reported: { status: "completed", progressPct: 100 },
    });
    expect(client.applied.length).toBeLessThanOrEqual(2);
  });

  it("gives up quietly on a deleted resource or after the retries", async () => {
    const client = new FakeClient();
    client.failApply = [404];
    const d = make(client);
    await d.mirrorStatus({ kind: "causal_analysis", job_id: JOB_ID }, status());
    client.failApply = [500, 500, 500, 500];
    await d.mirrorStatus({ kind: "prediction", job_id: JOB_ID }, status());
    await d.close();
    expect(client.applied).toHaveLength(0);
  });

  it("clamps values to the CRD's bounds", () => {
    expect(
      toReported(status({ error_code: "Not A Code", error_message: "x".repeat(5000), progress_pct: 140 })),
    ).toMatchObject({
      errorCode: null,
      progressPct: 100,
      errorMessage: "x".repeat(4000),
    });
  });
});

describe("apiServerConfig", () => {
  it("reads KUBECONFIG and hands every request the same connection pool", async () => {
    const dir = await mkdtemp(join(tmpdir(), "causeway-kubeconfig-"));
    const saved = process.env.KUBECONFIG;
    try {
      const file = join(dir, "config");
      const ca = Buffer.from("ca").toString("base64");
      await writeFile(
        file,
        JSON.stringify({
          apiVersion: "v1",
          kind: "Config",
          clusters: [
            { name: "c", cluster: { server: "https://127.0.0.1:6443", "certificate-authority-data": ca } },
          ],
          users: [{ name: "u", user: { token: "t0ken" } }],
          contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
          "current-context": "x",
        }),
      );
      process.env.KUBECONFIG = file;
      const kc = apiServerConfig();
      expect(kc).toBeInstanceOf(PooledKubeConfig);
      expect(kc.getCurrentCluster()?.server).toBe("https://127.0.0.1:6443");
      const contexts = [1, 2].map(() => new RequestContext("https://127.0.0.1:6443/api", HttpMethod.GET));
      for (const ctx of contexts) await kc.applySecurityAuthentication(ctx);
      expect(contexts[1]!.getDispatcher()).toBe(contexts[0]!.getDispatcher());
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
