import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { freePort } from "./ports.ts";
import { makeTempDir, startProcess, waitFor } from "./proc.ts";
import { projectNode } from "./repo.ts";

/** What an S3 client needs to reach the test server (the shape @aws-sdk/client-s3 takes, flattened). */
export interface S3Config {
  /** e.g. http://127.0.0.1:PORT */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** s3rver only serves path-style URLs on 127.0.0.1. */
  forcePathStyle: true;
}

/** A running s3rver with one bucket. */
export interface S3Server {
  readonly config: S3Config;
  stop(): Promise<void>;
}

/**
 * Starts s3rver (the devDependency) as a child process on a free loopback port, with `bucket`
 * created. A child rather than in-process: s3rver's logger hooks process-wide exception handlers, and
 * a test can stop this server to simulate an S3 outage without touching the vitest process.
 *
 * Caveat: s3rver does NOT verify request or presigned-URL signatures (a tampered presigned URL still
 * answers 200), so tests of signature expiry or tampering cannot pass or fail meaningfully here.
 */
export async function startS3(
  bucket = "causeway-test",
  options: {
    /** Where to listen; a real node's pods reach the host at its bridge address, not 127.0.0.1. */
    address?: string;
  } = {},
): Promise<S3Server> {
  const address = options.address ?? "127.0.0.1";
  const cli = join(
    dirname(createRequire(import.meta.url).resolve("s3rver/package.json")),
    "bin",
    "s3rver.js",
  );
  const temp = await makeTempDir("s3");
  const port = await freePort();
  const proc = startProcess({
    name: "s3rver",
    command: projectNode(),
    args: [
      cli,
      "--directory",
      join(temp.path, "data"),
      "--address",
      address,
      "--port",
      String(port),
      "--silent",
      "--configure-bucket",
      bucket,
    ],
    logPath: join(temp.path, "s3rver.log"),
    cwd: temp.path,
  });
  const endpoint = `http://${address}:${port}`;
  await waitFor(
    "s3rver to answer HTTP",
    async () => {
      const response = await fetch(`${endpoint}/${bucket}`, {
        method: "HEAD",
        signal: AbortSignal.timeout(2_000),
      });
      return response.status < 500 ? true : undefined;
    },
    { timeoutMs: 20_000, proc },
  );
  return {
    // s3rver's fixed default credentials; it accepts any well-formed request with them.
    config: {
      endpoint,
      bucket,
      region: "us-east-1",
      accessKeyId: "S3RVER",
      secretAccessKey: "S3RVER",
      forcePathStyle: true,
    },
    async stop(): Promise<void> {
      await proc.stop("SIGTERM", 5_000);
      await temp.remove();
    },
  };
}
