import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { cacheRoot } from "./kube/binaries.ts";
import { freePort } from "./ports.ts";
import { makeTempDir, startProcess, waitFor } from "./proc.ts";
import { repoRoot } from "./repo.ts";
import type { S3Config, S3Server } from "./s3.ts";

/** The MinIO build-minio.sh makes (a pseudo-version: MinIO tags no module versions any more). */
export const MINIO_VERSION = process.env.CAUSEWAY_MINIO_VERSION ?? "v0.0.0-20260212201848-7aac2a2c5b7c";

/** MinIO's binary, built by test/harness/build-minio.sh when missing (Go needed; minutes cold). */
export async function ensureMinio(): Promise<string> {
  const binary = join(cacheRoot(), "minio", MINIO_VERSION, "minio");
  if (existsSync(binary)) return binary;
  process.stderr.write(`[harness] minio missing: running test/harness/build-minio.sh\n`);
  await new Promise<void>((resolve, reject) => {
    const child = spawn("bash", [join(repoRoot, "test/harness/build-minio.sh")], {
      stdio: ["ignore", "inherit", "inherit"],
    });
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`build-minio.sh failed with exit code ${String(code)}`)),
    );
  });
  return binary;
}

/**
 * Starts MinIO on a free loopback port with one bucket. Unlike s3rver it verifies request and
 * presigned-URL signatures and expiry, so tests of those mean something against it.
 */
export async function startMinio(bucket = "causeway-test"): Promise<S3Server> {
  const binary = await ensureMinio();
  const temp = await makeTempDir("minio");
  const [port, consolePort] = await Promise.all([freePort(), freePort()]);
  const accessKeyId = `test${randomBytes(6).toString("hex")}`;
  const secretAccessKey = randomBytes(20).toString("hex");
  const proc = startProcess({
    name: "minio",
    command: binary,
    args: [
      "server",
      join(temp.path, "data"),
      "--address",
      `127.0.0.1:${port}`,
      "--console-address",
      `127.0.0.1:${consolePort}`,
      "--quiet",
    ],
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: temp.path,
      MINIO_ROOT_USER: accessKeyId,
      MINIO_ROOT_PASSWORD: secretAccessKey,
      MINIO_BROWSER: "off",
      MINIO_UPDATE: "off",
    },
    logPath: join(temp.path, "minio.log"),
    cwd: temp.path,
  });
  const endpoint = `http://127.0.0.1:${port}`;
  await waitFor(
    "minio /minio/health/live",
    async () => ((await fetch(`${endpoint}/minio/health/live`)).ok ? true : undefined),
    { timeoutMs: 60_000, intervalMs: 250, proc },
  );
  const config: S3Config = {
    endpoint,
    bucket,
    region: "us-east-1",
    accessKeyId,
    secretAccessKey,
    forcePathStyle: true,
  };
  const client = new S3Client({
    endpoint,
    region: config.region,
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
  });
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
  return {
    config,
    async stop(): Promise<void> {
      await proc.stop("SIGTERM", 5_000);
      await temp.remove();
    },
  };
}
