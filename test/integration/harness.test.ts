// Proves the test harness: the services global-setup starts are real and reachable.
import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { uniquePrefix } from "../harness/isolation.ts";
import { useIsolatedDatabase } from "../harness/vitest.ts";

describe("test harness services", () => {
  const db = useIsolatedDatabase("harness");
  const prefix = uniquePrefix("harness");

  it("runs a real PostgreSQL in a database of this file's own", async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query("CREATE TABLE t (id int PRIMARY KEY, doc jsonb NOT NULL)");
      await client.query("INSERT INTO t VALUES (1, $1)", [{ a: [1, 2] }]);
      const { rows } = await client.query<{ n: number; v: string; db: string }>(
        "SELECT (doc->'a'->>1)::int AS n, current_setting('server_version') AS v, current_database() AS db FROM t",
      );
      expect(rows[0]?.n).toBe(2);
      expect(rows[0]?.db).toMatch(/^t_harness_/);
      expect(Number.parseInt(rows[0]?.v ?? "0", 10)).toBeGreaterThanOrEqual(13);
    } finally {
      await client.end();
    }
  });

  const redis = new Redis(inject("redisUrl"), { lazyConnect: true, maxRetriesPerRequest: 1 });
  afterAll(() => redis.quit());

  it("runs a real Redis with Lua scripting", async () => {
    const key = `${prefix}counter`;
    // An atomic increment-with-expiry, the shape of a rate limiter.
    const script =
      "local n = redis.call('INCRBY', KEYS[1], ARGV[1]); redis.call('PEXPIRE', KEYS[1], ARGV[2]); return n";
    expect(await redis.eval(script, 1, key, 5, 60_000)).toBe(5);
    expect(await redis.eval(script, 1, key, 2, 60_000)).toBe(7);
    expect(await redis.pttl(key)).toBeGreaterThan(0);
  });

  it("serves S3 put, get and presigned GET", async () => {
    const s3 = inject("s3");
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: s3.forcePathStyle,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    try {
      const key = `${prefix}hello.txt`;
      await client.send(
        new PutObjectCommand({
          Bucket: s3.bucket,
          Key: key,
          Body: "hello causeway",
          ContentType: "text/plain",
        }),
      );
      const got = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
      expect(await got.Body?.transformToString()).toBe("hello causeway");
      const url = await getSignedUrl(client, new GetObjectCommand({ Bucket: s3.bucket, Key: key }), {
        expiresIn: 60,
      });
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe("hello causeway");
      // Not asserted: s3rver does not verify signatures, so expiry and tampering are untestable here.
    } finally {
      client.destroy();
    }
  });
});
