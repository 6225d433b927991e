import type { TestProject } from "vitest/node";
import type { KubeAccess } from "./kube/types.ts";
import { startPostgres, type PostgresServer } from "./postgres.ts";
import { startRedis, type RedisServer } from "./redis.ts";
import { startS3, type S3Config, type S3Server } from "./s3.ts";

declare module "vitest" {
  interface ProvidedContext {
    /** URL of a database on the run's PostgreSQL server; make one per file with createIsolatedDatabase. */
    databaseUrl: string;
    /** e.g. redis://127.0.0.1:PORT; prefix keys per file with uniquePrefix. */
    redisUrl: string;
    /** The run's s3rver and its bucket (signatures are not verified). */
    s3: S3Config;
    /** Admin access to the control plane: provided in the `cluster` project only (use injectKube()). */
    kube: KubeAccess | undefined;
    /** Path of the helm binary when one is cached (cluster project), else undefined. */
    helmPath: string | undefined;
  }
}

// Services are local processes, not testcontainers: the machines this project runs on (and CI) have
// no container engine, and one code path that always runs is more reliable than two.
interface Services {
  postgres: PostgresServer;
  redis: RedisServer;
  s3: S3Server;
}

// vitest runs this globalSetup once per project (integration, cluster) in the same process, and may
// load the module once per project. The servers are shared through globalThis with a reference count,
// so `npm test` starts one PostgreSQL/Redis/S3 for both projects and stops them after the last one.
interface Shared {
  services?: Promise<Services>;
  users: number;
}
const KEY = Symbol.for("causeway.test.harness.services");
const holder = globalThis as typeof globalThis & { [KEY]?: Shared };

async function startServices(): Promise<Services> {
  const started: Array<{ stop(): Promise<void> }> = [];
  try {
    const [postgres, redis, s3] = await Promise.all([
      startPostgres().then((s) => (started.push(s), s)),
      startRedis().then((s) => (started.push(s), s)),
      startS3().then((s) => (started.push(s), s)),
    ]);
    return { postgres, redis, s3 };
  } catch (error) {
    await Promise.allSettled(started.map((s) => s.stop()));
    throw error;
  }
}

async function acquire(): Promise<Services> {
  const shared = (holder[KEY] ??= { users: 0 });
  shared.users += 1;
  shared.services ??= startServices();
  try {
    return await shared.services;
  } catch (error) {
    shared.users -= 1;
    shared.services = undefined;
    throw error;
  }
}

async function release(): Promise<void> {
  const shared = holder[KEY];
  if (!shared || shared.users === 0) return;
  shared.users -= 1;
  if (shared.users > 0 || !shared.services) return;
  const services = await shared.services;
  shared.services = undefined;
  await Promise.allSettled([services.postgres.stop(), services.redis.stop(), services.s3.stop()]);
}

/** vitest globalSetup of the `integration` and `cluster` projects; returns the teardown. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const t0 = Date.now();
  // The control plane (cluster project only, loaded lazily) starts alongside the other services.
  const clusterPromise =
    project.name === "cluster"
      ? import("./kube/cluster-setup.ts").then((m) => m.startClusterForTests())
      : undefined;
  const [servicesResult, clusterResult] = await Promise.allSettled([acquire(), clusterPromise]);
  if (servicesResult.status === "rejected" || clusterResult.status === "rejected") {
    // Whichever half did start is stopped again before the error surfaces.
    if (servicesResult.status === "fulfilled") await release();
    if (clusterResult.status === "fulfilled") await clusterResult.value?.stop();
    throw servicesResult.status === "rejected"
      ? servicesResult.reason
      : (clusterResult as PromiseRejectedResult).reason;
  }
  const services = servicesResult.value;
  const cluster = clusterResult.value;
  project.provide("databaseUrl", services.postgres.url);
  project.provide("redisUrl", services.redis.url);
  project.provide("s3", services.s3.config);
  project.provide("kube", cluster?.access);
  project.provide("helmPath", cluster?.helmPath);
  if (process.env.CAUSEWAY_HARNESS_QUIET !== "1") {
    process.stderr.write(`[harness] ${project.name}: services ready in ${Date.now() - t0} ms\n`);
  }
  return async () => {
    await cluster?.stop();
    await release();
  };
}
