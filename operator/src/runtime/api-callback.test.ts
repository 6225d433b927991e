import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { RunnerCallback, deriveCallbackKey, verifyCallback } from "@causeway/contract";
import { httpFailureReporter, type FailureReport } from "./api-callback.ts";

let server: Server | undefined;
afterEach(() => server?.close());

async function api(
  statuses: number[],
): Promise<{ base: string; got: { url: string; body: string; ts: number; sig: string }[] }> {
  const got: { url: string; body: string; ts: number; sig: string }[] = [];
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      got.push({
        url: req.url ?? "",
        body,
        ts: Number(req.headers["x-causeway-timestamp"]),
        sig: String(req.headers["x-causeway-signature"]),
      });
      res.statusCode = statuses.shift() ?? 204;
      res.end();
    });
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return { base: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/`, got };
}

const JOB = "0b6c52b4-5a0f-4e2c-9f1e-2f0e8a4c7d11";
const report: FailureReport = {
  kind: "prediction",
  jobId: JOB,
  errorCode: "out_of_memory",
  message: "The runner ran out of memory.",
};

describe("httpFailureReporter", () => {
  it("posts a signed, schema-valid, non-billable failed callback to the job's callback route", async () => {
    const { base, got } = await api([]);
    const gaveUp: string[] = [];
    await httpFailureReporter({
      baseUrl: base,
      serverSecret: "s".repeat(32),
      onGiveUp: (_, r) => gaveUp.push(r),
    })(report);
    expect(gaveUp).toEqual([]);
    expect(got).toHaveLength(1);
    expect(got[0]!.url).toBe(`/internal/v1/jobs/prediction/${JOB}/callback`);
    const key = deriveCallbackKey("s".repeat(32), JOB);
    expect(verifyCallback(key, got[0]!.ts, got[0]!.body, got[0]!.sig, Math.floor(Date.now() / 1000))).toBe(
      "ok",
    );
    expect(RunnerCallback.parse(JSON.parse(got[0]!.body))).toMatchObject({
      status: "failed",
      error_code: "out_of_memory",
      billable: false,
      attempt: "operator",
    });
  });

  it("retries server errors, stops on a client error and says why it gave up", async () => {
    const { base, got } = await api([503, 401]);
    const gaveUp: string[] = [];
    await httpFailureReporter({
      baseUrl: base,
      serverSecret: "s".repeat(32),
      sleep: async () => {},
      onGiveUp: (_, r) => gaveUp.push(r),
    })(report);
    expect(got).toHaveLength(2);
    expect(gaveUp).toEqual(["HTTP 401"]);
  });
});
