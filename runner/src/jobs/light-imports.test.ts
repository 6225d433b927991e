/**
 * What a runner process loads: the AWS SDK only for an S3 store and the OpenTelemetry SDK only
 * when tracing is on (each ~12–20 MB resident in every runner and embedded API otherwise).
 * A child process records every module it resolves while it opens a filesystem store and
 * initialises tracing the way a runner does, then an S3 store, then tracing with an exporter.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const src = (path: string): string => fileURLToPath(new URL(`../${path}`, import.meta.url));

const SCRIPT = `
import { registerHooks } from "node:module";
const loaded = [];
registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); loaded.push(r.url); return r; } });
const heavy = () => ({
  aws: loaded.some((u) => u.includes("/@aws-sdk/")),
  otelSdk: loaded.some((u) => u.includes("/@opentelemetry/sdk-trace")),
});
const { storeFromEnv } = await import(${JSON.stringify(src("jobs/store-from-env.ts"))});
const { initTracing } = await import("@causeway/contract/telemetry");
await storeFromEnv({ CAUSEWAY_STORAGE: "fs", CAUSEWAY_STORAGE_DIR: "/tmp" });
await initTracing("causeway-runner");
const embedded = heavy();
await storeFromEnv({ CAUSEWAY_STORAGE: "s3", S3_BUCKET: "bucket" });
const s3 = heavy();
await initTracing("causeway-runner", { exporter: { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} } });
console.log(JSON.stringify({ embedded, s3, traced: heavy() }));
`;

describe("a runner's imports", () => {
  it("leave the AWS SDK and the OpenTelemetry SDK out until they are needed", async () => {
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", SCRIPT], {
      cwd: src("."),
      env: { PATH: process.env.PATH ?? "" },
    });
    expect(JSON.parse(stdout)).toEqual({
      embedded: { aws: false, otelSdk: false },
      s3: { aws: true, otelSdk: false },
      traced: { aws: true, otelSdk: true },
    });
  });
});
