import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../testing/helper.ts";
import { canonicalIp, clientAddress } from "./client-address.ts";

/** Every spelling of 192.0.2.99 the attack run used, and more. */
const SPELLINGS_OF_192_0_2_99 = [
  "192.0.2.99",
  " 192.0.2.99 ",
  "192.0.2.99:8080",
  "3221226083", // one 32-bit decimal number
  "0xc0000263", // one hex number
  "0XC0000263",
  "0300.0.2.0143", // octal parts
  "0xc0.0.0x2.0x63", // hex parts
  "192.0.0x2.99",
  "192.0.611", // a.b.c: the last part fills 16 bits
  "192.611", // a.b: the last part fills 24 bits
  "::ffff:192.0.2.99", // IPv4-mapped IPv6
  "::FFFF:192.0.2.99",
  "::ffff:c000:263",
  "::FFFF:C000:0263",
  "0:0:0:0:0:ffff:c000:263",
  "0000:0000:0000:0000:0000:FFFF:C000:0263",
  "[::ffff:192.0.2.99]",
  "[::ffff:192.0.2.99]:443",
];

const SPELLINGS_OF_2001_DB8__1 = [
  "2001:db8::1",
  "2001:DB8::1",
  "2001:0db8:0000:0000:0000:0000:0000:0001",
  "2001:db8:0:0:0:0:0:1",
  "2001:db8::0:1",
  "[2001:db8::1]",
  "[2001:DB8::1]:8443",
];

const NOT_ADDRESSES = [
  "",
  "garbage-1",
  "unknown",
  "dead.beef",
  "example.com",
  "192.0.2.099", // ambiguous: a 0-prefixed part with a non-octal digit
  "4294967296", // beyond 32 bits
  "1.2.3.4.5",
  "::ffff:192.0.2.999",
  "2001:db8:::1",
  "1.2.3.4, 5.6.7.8",
  "<script>",
];

describe("canonicalIp", () => {
  it.each(SPELLINGS_OF_192_0_2_99)("%j is 192.0.2.99", (s) => {
    expect(canonicalIp(s)).toBe("192.0.2.99");
  });
  it.each(SPELLINGS_OF_2001_DB8__1)("%j is 2001:db8::1", (s) => {
    expect(canonicalIp(s)).toBe("2001:db8::1");
  });
  it.each(NOT_ADDRESSES)("%j is not an address", (s) => {
    expect(canonicalIp(s)).toBeNull();
  });
  it("keeps distinct addresses distinct", () => {
    expect(canonicalIp("::1")).toBe("::1");
    expect(canonicalIp("127.0.0.1")).toBe("127.0.0.1");
    expect(canonicalIp("::192.0.2.99")).not.toBe("192.0.2.99");
    expect(canonicalIp("fe80::1%eth0")).toBe("fe80::1");
  });
  it("falls back to the connecting address for a value that is not an address", () => {
    expect(clientAddress({ ip: "garbage-7", socket: { remoteAddress: "::ffff:10.9.9.9" } })).toBe("10.9.9.9");
  });
});

describe("the edge limit behind a trusted proxy", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({
      CAUSEWAY_EDGE_LIMIT_ENABLED: "true",
      CAUSEWAY_EDGE_LIMIT: "3",
      CAUSEWAY_TRUSTED_PROXIES: "10.9.9.9",
    });
  }, 120_000);
  afterAll(async () => t.close());

  const via = (client: string) =>
    t.app.inject({ url: "/health", remoteAddress: "10.9.9.9", headers: { "x-forwarded-for": client } });

  it("gives every spelling of one address one bucket", async () => {
    for (const spellings of [SPELLINGS_OF_192_0_2_99, SPELLINGS_OF_2001_DB8__1]) {
      const codes = [];
      for (const s of spellings) codes.push((await via(s)).statusCode);
      expect(codes.slice(0, 3)).toEqual([200, 200, 200]);
      expect(codes.slice(3)).toEqual(spellings.slice(3).map(() => 403));
    }
  });

  it("puts values that are not addresses in the connecting address's bucket, not a fresh one each", async () => {
    const codes = [];
    for (let i = 0; i < 6; i++) codes.push((await via(`garbage-${i}`)).statusCode);
    expect(codes).toEqual([200, 200, 200, 403, 403, 403]);
    // The proxy's own requests share that bucket.
    expect((await t.app.inject({ url: "/health", remoteAddress: "10.9.9.9" })).statusCode).toBe(403);
  });

  it("counts unknown /internal/ paths; the callback route keeps its own limit", async () => {
    const from = "198.51.100.7";
    const codes = [];
    for (let i = 0; i < 4; i++)
      codes.push((await t.app.inject({ url: `/internal/nothing-${i}`, remoteAddress: from })).statusCode);
    expect(codes).toEqual([404, 404, 404, 403]);
    const callback = await t.app.inject({
      method: "POST",
      url: "/internal/v1/jobs/prediction/0b7c6c2e-1111-4222-8333-444455556666/callback",
      remoteAddress: from,
      headers: { "content-type": "application/json" },
      payload: "{}",
    });
    expect(callback.statusCode).toBe(401);
  });
});
