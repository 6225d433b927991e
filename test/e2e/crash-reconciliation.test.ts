/**
 * kill -9 during an upload, then a restart of the embedded server (`node api/src/main.ts`) on the
 * same data directory: the quota consumed equals the billable predictions (the killed request's
 * unit is refunded) and the server's TMPDIR holds nothing of the killed request. Nothing faked:
 * the real Kang split pair streams over HTTP and the process is SIGKILLed mid-body.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_NETWORK, HGNC_DIR, KANG_DIR, REPO_ROOT } from "../shared-data.ts";
import { waitFor } from "../harness/proc.ts";
import { NODE, spawnServer, type ServerProcess } from "./embedded-server.ts";

const exec = promisify(execFile);
const SPLIT = join(KANG_DIR, "split_cd14mono");

let server: ServerProcess;
let dataDir: string;
let serverTmp: string;
let base: string;

const env = (): NodeJS.ProcessEnv => ({
  ...process.env,
  CAUSEWAY_DATA_DIR: dataDir,
  CAUSEWAY_MODEL: DEFAULT_NETWORK,
  CAUSEWAY_HGNC: HGNC_DIR,
  // The server's own temp directory, so the test can see everything it leaves there.
  TMPDIR: serverTmp,
  LOG_LEVEL: "warn",
  CAUSEWAY_EDGE_LIMIT: "100000",
});

/** Starts the server on the data directory (again, after the kill: same database and objects). */
async function startServer(): Promise<void> {
  // Below the 300 s hook timeout: a slow start fails with the server's output.
  server = await spawnServer(env(), 280_000);
  base = server.base;
}

/** Every file and folder under `dir`, relative. */
async function tree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "causeway-crash-"));
  serverTmp = await mkdtemp(join(tmpdir(), "causeway-crash-tmp-"));
  await startServer();
}, 300_000);

afterAll(async () => {
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
  await rm(serverTmp, { recursive: true, force: true });
});

describe("kill -9 during an upload, then restart", () => {
  it("refunds the killed request's quota unit and leaves nothing of it in TMPDIR", async () => {
    const { stdout } = await exec(
      NODE,
      ["api/src/admin/cli.ts", "accounts", "create", "--name", "crash", "--tier", "external", "--json"],
      { cwd: REPO_ROOT, env: env() },
    );
    const key = (JSON.parse(stdout.trim().split("\n").at(-1)!) as { api_key: string }).api_key;

    // One billable prediction, run to the end.
    const control = await readFile(join(SPLIT, "control.h5ad"));
    const form = new FormData();
    form.set("dataset_control", new Blob([control]), "control.h5ad");
    form.set("dataset_pert", new Blob([await readFile(join(SPLIT, "perturbed.h5ad"))]), "perturbed.h5ad");
    form.set("degs", await readFile(join(SPLIT, "degs.json"), "utf8"));
    form.set("job_type", "target_validation");
    form.set("target", "STAT1|PROTEIN");
    const first = await fetch(`${base}/v1/predictions`, {
      method: "POST",
      body: form,
      headers: { "X-API-Key": key },
    });
    expect(first.status).toBe(202);
    const { prediction_id: id } = (await first.json()) as { prediction_id: string };
    await waitFor(
      "the first prediction to complete",
      async () => {
        const s = (await (
          await fetch(`${base}/v1/predictions/${id}`, { headers: { "X-API-Key": key } })
        ).json()) as {
          status: string;
        };
        return s.status === "completed"
          ? s
          : s.status === "failed"
            ? Promise.reject(new Error(JSON.stringify(s)))
            : undefined;
      },
      { timeoutMs: 240_000, intervalMs: 250 },
    );

    // A second upload that never finishes: half the control file, then the process dies.
    const boundary = "----crashcrash";
    const req = request({
      host: "127.0.0.1",
      port: server.port,
      method: "POST",
      path: "/v1/predictions",
      headers: {
        "x-api-key": key,
        "content-type": `multipart/form-data; boundary=${boundary}`,
        "transfer-encoding": "chunked",
      },
    });
    req.on("error", () => {}); // the server dies under it
    req.write(
      `--${boundary}\r\nContent-Disposition: form-data; name="job_type"\r\n\r\ntarget_validation\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="dataset_control"; filename="control.h5ad"\r\n` +
        `Content-Type: application/octet-stream\r\n\r\n`,
    );
    req.write(control.subarray(0, control.length >> 1));
    // The server has taken the unit and is writing the upload to its temp folder.
    await waitFor(
      "the upload to reach the server's temp folder",
      async () => (await tree(serverTmp)).some((p) => p.endsWith("dataset_control.h5ad")),
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    const during = (await (
      await fetch(`${base}/v1/usage/predictions/quota`, { headers: { "X-API-Key": key } })
    ).json()) as {
      consumed_quota_requests: number;
    };
    expect(during.consumed_quota_requests).toBe(2);
    await server.stop("SIGKILL");
    req.destroy();
    expect((await tree(serverTmp)).some((p) => p.endsWith("dataset_control.h5ad"))).toBe(true);

    await startServer();
    const quota = (await (
      await fetch(`${base}/v1/usage/predictions/quota`, { headers: { "X-API-Key": key } })
    ).json()) as {
      consumed_quota_requests: number;
    };
    const list = (await (
      await fetch(`${base}/v1/predictions`, { headers: { "X-API-Key": key } })
    ).json()) as {
      predictions: unknown[];
    };
    // Quota consumed = billable predictions: the one completed prediction.
    expect(list.predictions).toHaveLength(1);
    expect(quota.consumed_quota_requests).toBe(1);
    // Nothing of the killed request is left in TMPDIR: no upload folder, no copy of the file.
    const left = await tree(serverTmp);
    expect(left.filter((p) => /upload-|\.h5ad$|causeway-job-/.test(p))).toEqual([]);
  });
});
