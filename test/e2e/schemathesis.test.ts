/**
 * Schemathesis (from PyPI) against the embedded server with every check enabled and all phases
 * (examples, coverage, fuzzing, stateful through the document's links). The run must end with
 * zero failures and zero errors; its one per-operation setting, about uploaded files, is
 * explained in schemathesis/schemathesis.toml.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../shared-data.ts";
import { startEmbeddedServer, type EmbeddedServer } from "./embedded-server.ts";
import { ensurePythonTools, type PythonTools } from "./python-tools.ts";

const exec = promisify(execFile);
let server: EmbeddedServer;
let tools: PythonTools;
let work: string;

beforeAll(async () => {
  [server, tools] = await Promise.all([
    // Limits that a test run would trip by design have their own tests; here they would only
    // turn generated requests into 403/429 before they reach the routes.
    startEmbeddedServer({
      CAUSEWAY_EDGE_LIMIT: "1000000",
      CAUSEWAY_RATE_LIMIT: "1000000",
      CAUSEWAY_INFLIGHT_LIMIT: "1000",
      CAUSEWAY_DEFAULT_QUOTA: "1000000",
    }),
    ensurePythonTools(),
  ]);
  // Schemathesis keeps its example database in the working directory.
  work = await mkdtemp(join(tmpdir(), "causeway-schemathesis-"));
}, 600_000);

afterAll(async () => {
  await server?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe("Schemathesis", () => {
  it("finds no failure with every check enabled", async () => {
    const key = await server.newAccount("internal", "schemathesis");
    const args = [
      "--config-file",
      join(REPO_ROOT, "test/e2e/schemathesis/schemathesis.toml"),
      "run",
      `${server.base}/openapi.json`,
      "--checks",
      "all",
      "--header",
      `X-API-Key: ${key}`,
      "--max-examples",
      "50",
      "--generation-deterministic",
      "--workers",
      "1",
    ];
    const result = await exec(tools.bin("schemathesis"), args, {
      cwd: work,
      env: { ...process.env, NO_COLOR: "1", SCHEMATHESIS_HOOKS: "" },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 540_000,
    }).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
    );
    expect(result.code, result.out).toBe(0);
    const tested = /Tested: (\d+)/.exec(result.out);
    // The contract's 14 routes, the prediction's event stream, its target table, gene resolution
    // and the two Cytoscape exports of causal graphs.
    expect(Number(tested?.[1])).toBe(19);
    expect(result.out).not.toMatch(/Runtime Error|failures?,/);
  }, 600_000);
});
