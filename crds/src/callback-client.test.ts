import { afterEach, describe, expect, it, vi } from "vitest";
import { callbackEndpoint, type CallbackEndpoint } from "../../test/builders/callback-endpoint.ts";
import { deriveCallbackKey, verifyCallback } from "./callback-auth.ts";
import { RunnerCallback, type ProgressCallback } from "./callback.ts";
import { CALLBACK_RETRY, sendCallback, type CallbackRetryPolicy } from "./callback-client.ts";

let api: CallbackEndpoint | undefined;
afterEach(() => {
  vi.unstubAllGlobals();
  return api?.close();
});

async function endpoint(
  statuses: (number | "hang")[],
): Promise<{ url: string; received: CallbackEndpoint["received"] }> {
  api = await callbackEndpoint(statuses);
  return { url: `${api.base}/callback`, received: api.received };
}

const JOB = "6f1c2b1e-8d4a-4c55-9f44-0d0b2c9a7e11";
const keyHex = deriveCallbackKey("server-secret", JOB);
const body: ProgressCallback = {
  job_id: JOB,
  kind: "prediction",
  attempt: "a1",
  seq: 0,
  status: "processing",
  processing_step: "inputs_downloaded",
  progress_pct: 5,
};

/** A sleep that records the waits instead of waiting. */
function recordingSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms) };
}

describe("sendCallback", () => {
  it("posts the body signed with the job's key, with the extra headers", async () => {
    const { url, received } = await endpoint([]);
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const delivery = await sendCallback(
      { url, keyHex, body, headers: { traceparent } },
      CALLBACK_RETRY.bestEffort,
    );
    expect(delivery).toEqual({ delivered: true });
    expect(received).toHaveLength(1);
    const r = received[0]!;
    expect(verifyCallback(keyHex, r.timestamp, r.body, r.signature, Math.floor(Date.now() / 1000))).toBe(
      "ok",
    );
    expect(RunnerCallback.parse(JSON.parse(r.body))).toEqual(body);
    expect(r.headers.traceparent).toBe(traceparent);
  });

  it.each([
    { name: "server errors", statuses: [503, 500], attempts: 3 },
    { name: "throttling", statuses: [429], attempts: 2 },
    { name: "a request timeout", statuses: [408], attempts: 2 },
  ])("retries through $name, signing each attempt afresh", async ({ statuses, attempts }) => {
    const { url, received } = await endpoint(statuses);
    const { sleep } = recordingSleep();
    expect(await sendCallback({ url, keyHex, body }, CALLBACK_RETRY.carriesResult, { sleep })).toEqual({
      delivered: true,
    });
    expect(received).toHaveLength(attempts);
    const now = Math.floor(Date.now() / 1000);
    for (const r of received)
      expect(verifyCallback(keyHex, r.timestamp, r.body, r.signature, now)).toBe("ok");
  });

  it("does not use the global fetch (loading undici costs every runner ~19 MB)", async () => {
    const { url, received } = await endpoint([]);
    vi.stubGlobal("fetch", () => {
      throw new Error("fetch used");
    });
    expect(await sendCallback({ url, keyHex, body }, CALLBACK_RETRY.bestEffort)).toEqual({ delivered: true });
    expect(received).toHaveLength(1);
  });

  it("stops at once on an answer a retry cannot fix, and says which", async () => {
    const { url, received } = await endpoint([401]);
    const failures: string[] = [];
    const delivery = await sendCallback({ url, keyHex, body }, CALLBACK_RETRY.carriesResult, {
      sleep: recordingSleep().sleep,
      onAttemptFailed: (reason) => failures.push(reason),
    });
    expect(delivery).toEqual({ delivered: false, reason: "HTTP 401" });
    expect(received).toHaveLength(1);
    expect(failures).toEqual(["HTTP 401"]);
  });

  it.each([
    { name: "bestEffort", policy: CALLBACK_RETRY.bestEffort, waits: [500, 1000] },
    {
      name: "carriesResult",
      policy: CALLBACK_RETRY.carriesResult,
      waits: [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000],
    },
    {
      name: "backedBySweeper",
      policy: CALLBACK_RETRY.backedBySweeper,
      waits: [1000, 2000, 4000, 8000, 16000],
    },
  ])("$name: gives up after its attempts, backing off between them", async ({ policy, waits }) => {
    const { url, received } = await endpoint(Array<number>(policy.attempts).fill(503));
    const rec = recordingSleep();
    const delivery = await sendCallback({ url, keyHex, body }, policy, { sleep: rec.sleep });
    expect(delivery).toEqual({ delivered: false, reason: "HTTP 503" });
    expect(received).toHaveLength(policy.attempts);
    expect(rec.waits).toEqual(waits);
  });

  it("an attempt that outlives its timeout fails and is retried", async () => {
    const { url, received } = await endpoint(["hang"]);
    const policy: CallbackRetryPolicy = { attempts: 2, firstDelayMs: 0, maxDelayMs: 0, timeoutMs: 200 };
    const failures: string[] = [];
    const delivery = await sendCallback({ url, keyHex, body }, policy, {
      onAttemptFailed: (reason) => failures.push(reason),
    });
    expect(delivery).toEqual({ delivered: true });
    expect(received).toHaveLength(2);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/timeout|abort/i);
  });

  it("a network error counts as a failed attempt, with the error as the reason", async () => {
    const { url } = await endpoint([]);
    await api?.close();
    const delivery = await sendCallback(
      { url, keyHex, body },
      { attempts: 2, firstDelayMs: 0, maxDelayMs: 0, timeoutMs: 1000 },
    );
    expect(delivery.delivered).toBe(false);
    expect(delivery.delivered === false && delivery.reason).toMatch(/ECONNREFUSED/);
  });
});
