/**
 * The SDK against the real app on a loopback port (embedded parts, a settable clock): typed
 * calls, the contract's retry rules (GET retried after edge blocks and rate_limited with
 * Retry-After or jittered backoff; POST never), the request budget under the edge limit, and
 * client-side validation of submissions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, completeJob, submit, validationArtifacts, type TestApp } from "../testing/helper.ts";
import { CausewayError } from "./errors.ts";
import { backoffMs, RequestBudget, retryAfterMs } from "./pacing.ts";
import { CausewayClient, type ClientOptions } from "./sdk.ts";
import { waitForPrediction, type Progress } from "./wait.ts";

let t: TestApp;
let base: string;
let key: string;
const EDGE = 4;

beforeAll(async () => {
  t = await buildTestApp({
    CAUSEWAY_EDGE_LIMIT_ENABLED: "true",
    CAUSEWAY_EDGE_LIMIT: String(EDGE),
    CAUSEWAY_EDGE_WINDOW_SECONDS: "60",
    CAUSEWAY_RATE_LIMIT: "1",
    CAUSEWAY_INFLIGHT_LIMIT: "100",
  });
  base = await t.app.listen({ port: 0, host: "127.0.0.1" });
  key = (await t.account("internal")).key;
}, 120_000);
afterAll(async () => t.close());

/** A client whose sleeps advance the app's clock, counting what it sends. */
function client(options: Partial<ClientOptions> = {}) {
  const sent: string[] = [];
  const sleeps: number[] = [];
  const sdk = new CausewayClient({
    baseUrl: base,
    apiKey: key,
    now: () => t.clock.now.getTime(),
    sleep: async (ms) => {
      sleeps.push(ms);
      t.clock.advance(ms);
    },
    random: () => 0.5,
    requestsPerMinute: 1000,
    fetch: async (input, init) => {
      sent.push(`${init?.method ?? "GET"} ${String(input)}`);
      return fetch(input, init);
    },
    ...options,
  });
  return { sdk, sent, sleeps };
}

const freshWindow = () => t.clock.advance(61_000);

describe("retries (service-spec §7)", () => {
  it("retries a GET after an edge block with growing jittered backoff until the window lets it through", async () => {
    freshWindow();
    const { sdk, sleeps, sent } = client();
    for (let i = 0; i < EDGE; i++) await sdk.getQuota();
    const quota = await sdk.getQuota();
    expect(quota.total_quota_requests).toBe(100);
    // random() = 0.5 → 3/4 of each cap (2 s, 4 s, 8 s, … at most 60 s) until the window has passed.
    expect(sleeps).toEqual([1500, 3000, 6000, 12000, 24000, 45000].slice(0, sleeps.length));
    expect(sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(60_000);
    expect(sent.length).toBe(EDGE + 1 + sleeps.length);
  });

  it("says how long it waits on the edge limit before each pause", async () => {
    freshWindow();
    const waits: [number, string][] = [];
    const { sdk, sleeps } = client({ onWait: (ms, reason) => waits.push([ms, reason]) });
    for (let i = 0; i <= EDGE; i++) await sdk.getQuota();
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.map(([ms]) => ms)).toEqual(sleeps);
    expect(new Set(waits.map(([, reason]) => reason))).toEqual(new Set(["edge_blocked"]));
  });

  it("gives up after maxRetries with the edge_blocked code", async () => {
    freshWindow();
    const { sdk } = client({ maxRetries: 1 });
    for (let i = 0; i < EDGE; i++) await sdk.getQuota();
    const err = await sdk.getQuota().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CausewayError);
    expect((err as CausewayError).code).toBe("edge_blocked");
    expect((err as CausewayError).oneLine()).toMatch(/^edge_blocked: .* \(HTTP 403\)$/);
  });

  it("never retries a POST: rate_limited comes back at once, with its Retry-After", async () => {
    freshWindow();
    const { sdk, sent, sleeps } = client();
    const dataset = new Blob(["not really hdf5"]);
    const first = await sdk.createPrediction({ dataset, job_type: "target_id", label: "one" });
    expect(first.status).toBe("pending");
    const err = (await sdk.createPrediction({ dataset }).catch((e: unknown) => e)) as CausewayError;
    expect(err.code).toBe("rate_limited");
    expect(err.status).toBe(429);
    expect(err.retryAfterMs).toBeGreaterThan(0);
    expect(sent.filter((s) => s.startsWith("POST"))).toHaveLength(2);
    expect(sleeps).toEqual([]);
    const sentForm = t.dispatcher.specs.at(-1)!;
    expect(sentForm.kind).toBe("prediction");
  });

  it("retries a GET answered rate_limited after exactly its Retry-After", async () => {
    freshWindow();
    let answered = false;
    const { sdk, sleeps } = client({
      // The service answers GETs rate_limited only behind a rate-limiting proxy; stand in for it once.
      fetch: async (input, init) => {
        if (answered) return fetch(input, init);
        answered = true;
        return new Response('{"detail":"slow down"}', {
          status: 429,
          headers: {
            "x-service-error-code": "rate_limited",
            "retry-after": "7",
            "content-type": "application/json",
          },
        });
      },
    });
    expect((await sdk.getQuota()).remaining_quota_requests).toBe(99);
    expect(sleeps).toEqual([7000]);
  });
});

describe("typed calls and errors", () => {
  it("submits the split shape as the server reads it: files, DEGs as a JSON array, options", async () => {
    freshWindow();
    const { sdk } = client();
    const created = await sdk.createPrediction({
      dataset_control: new Blob(["c"]),
      dataset_pert: new Blob(["p"]),
      degs: ["IFIT1", "MX1"],
      job_type: "target_validation",
      target: "STAT1|PROTEIN",
      top_n_causal_degs: 50,
      max_path_length: 4,
    });
    const spec = t.dispatcher.specs.find((s) => s.job_id === created.prediction_id)!;
    expect(spec).toMatchObject({ job_type: "target_validation", target: "STAT1|PROTEIN" });
    expect(JSON.stringify(spec)).toContain('"top_n_causal_degs":50');
    if (spec.kind !== "prediction" || spec.inputs.shape !== "split")
      throw new Error("expected a split prediction");
    expect(JSON.parse((await t.store.get(spec.inputs.degs_key)).toString())).toEqual(["IFIT1", "MX1"]);
    const status = await sdk.getPrediction(created.prediction_id);
    expect(status).toMatchObject({
      status: "pending",
      target: "STAT1|PROTEIN",
      job_type: "target_validation",
    });
  });

  it("validates a submission before sending it", async () => {
    const { sdk, sent } = client();
    const err = (await sdk
      .createPrediction({ dataset: new Blob(["x"]), top_n_causal_degs: 0 })
      .catch((e: unknown) => e)) as CausewayError;
    expect(err.code).toBe("invalid_input");
    expect(err.message).toContain("top_n_causal_degs");
    expect(sent).toEqual([]);
  });

  it("turns error answers into CausewayError with the service's code and detail", async () => {
    freshWindow();
    const { sdk } = client();
    const missing = (await sdk
      .getPrediction("6f1c1f7e-8f8e-4a43-9d39-9b8f3f1f2b10")
      .catch((e: unknown) => e)) as CausewayError;
    expect(missing.oneLine()).toBe("not_found: Not found. (HTTP 404)");
    const invalid = (await sdk
      .listPredictions({ cursor: "garbage" })
      .catch((e: unknown) => e)) as CausewayError;
    expect(invalid.code).toBe("validation_error");
    expect(invalid.message).toMatch(/^query.cursor: /);
    const bad = new CausewayClient({ baseUrl: base, apiKey: "cw_wrong", requestsPerMinute: 1000 });
    expect(((await bad.getQuota().catch((e: unknown) => e)) as CausewayError).code).toBe("unauthorized");
  });
});

describe("waiting", () => {
  it("polls within the edge limit, backs off while nothing moves, reports each change", async () => {
    freshWindow();
    const statuses: number[] = [];
    // The client's budget is the server's edge limit (EDGE a minute): its polls are never blocked.
    const { sdk } = client({
      requestsPerMinute: EDGE,
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        statuses.push(res.status);
        return res;
      },
    });
    const id = await submit(t, key);
    const seen: Progress[] = [];
    const waits: number[] = [];
    const final = await waitForPrediction(sdk, id, {
      stream: false,
      onProgress: (p) => seen.push(p),
      maxIntervalMs: 60_000,
      sleep: async (ms) => {
        waits.push(ms);
        t.clock.advance(ms);
        // The runner reports once, later finishes; in between the status stays the same.
        if (waits.length === 3)
          await t.callback({
            job_id: id,
            kind: "prediction",
            attempt: "local-1",
            seq: 0,
            status: "processing",
            processing_step: "model_loaded",
            progress_pct: 45,
          });
        if (waits.length === 8) await completeJob(t, "prediction", id, validationArtifacts());
      },
    });
    expect(final.status).toBe("completed");
    expect(seen.map((p) => `${p.status}:${p.processing_step ?? "-"}:${p.progress_pct ?? "-"}`)).toEqual([
      "pending:-:-",
      "processing:model_loaded:45",
      "completed:results_uploaded:100",
    ]);
    // 60 s / EDGE apart at least; half as long again while nothing changes, up to the ceiling;
    // back to the steady rate when progress moves.
    expect(waits).toEqual([15_000, 22_500, 33_750, 15_000, 22_500, 33_750, 50_625, 60_000]);
    expect(statuses.every((s) => s === 200)).toBe(true);
  });
});

describe("waiting on the event stream", () => {
  it("follows the prediction's events with one request, then reads the record once", async () => {
    freshWindow();
    const { sdk, sent } = client({ requestsPerMinute: EDGE });
    const id = await submit(t, key);
    const seen: Progress[] = [];
    const waiting = waitForPrediction(sdk, id, {
      onProgress: (p) => {
        seen.push(p);
        // Each change the client sees lets the runner take its next step.
        if (seen.length === 1)
          void t.callback({
            job_id: id,
            kind: "prediction",
            attempt: "local-1",
            seq: 0,
            status: "processing",
            processing_step: "model_loaded",
            progress_pct: 45,
          });
        if (seen.length === 2) void completeJob(t, "prediction", id, validationArtifacts());
      },
    });
    const final = await waiting;
    expect(final.status).toBe("completed");
    expect(final.results?.length).toBeGreaterThan(0);
    expect(seen.map((p) => `${p.status}:${p.processing_step ?? "-"}:${p.progress_pct ?? "-"}`)).toEqual([
      "pending:-:-",
      "processing:model_loaded:45",
      "completed:results_uploaded:100",
    ]);
    const reads = sent.filter((r) => r.includes(`/v1/predictions/${id}`));
    expect(reads).toEqual([`GET ${base}/v1/predictions/${id}/events`, `GET ${base}/v1/predictions/${id}`]);
  });
});

describe("pacing", () => {
  it("keeps any 60 s window at or under the budget", async () => {
    let now = 0;
    const budget = new RequestBudget(
      30,
      60_000,
      () => now,
      async (ms) => void (now += ms),
    );
    const times: number[] = [];
    for (let i = 0; i < 75; i++) {
      await budget.take();
      times.push(now);
      now += 100;
    }
    for (const t0 of times)
      expect(times.filter((x) => x >= t0 && x < t0 + 60_000).length).toBeLessThanOrEqual(30);
    expect(budget.steadyIntervalMs).toBe(2000);
  });

  it("reads Retry-After as seconds or a date, and bounds backoff", () => {
    expect(retryAfterMs("5", 0)).toBe(5000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs(null, 0)).toBeNull();
    expect(retryAfterMs("soon", 0)).toBeNull();
    for (let attempt = 0; attempt < 10; attempt++) {
      const low = backoffMs(attempt, 2000, 60_000, () => 0);
      const high = backoffMs(attempt, 2000, 60_000, () => 1);
      expect(high).toBe(Math.min(60_000, 2000 * 2 ** attempt));
      expect(low).toBe(high / 2);
    }
  });
});
