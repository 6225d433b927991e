import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { BodyFingerprint, MultipartFingerprint, pathOf } from "./request-fingerprint.ts";

async function multipartOf(parts: [string, string | Buffer][], chunk = 3): Promise<string> {
  const fp = new MultipartFingerprint("post", "/v1/predictions");
  for (const [name, value] of parts) {
    if (typeof value === "string") fp.field(name, value);
    else {
      const pieces = Array.from({ length: Math.ceil(value.length / chunk) }, (_, i) =>
        value.subarray(i * chunk, (i + 1) * chunk),
      );
      await pipeline(Readable.from(pieces), fp.file(name), new Writable({ write: (_c, _e, done) => done() }));
    }
  }
  return fp.finish();
}

describe("request fingerprints", () => {
  it("a multipart form hashes its parts, not how its bytes were chunked", async () => {
    const form: [string, string | Buffer][] = [
      ["job_type", "target_validation"],
      ["dataset_control", Buffer.from("0123456789abcdef")],
    ];
    expect(await multipartOf(form, 3)).toBe(await multipartOf(form, 7));
  });

  it("any changed value, file byte or field name changes it", async () => {
    const base = await multipartOf([
      ["a", "1"],
      ["f", Buffer.from("xyz")],
    ]);
    expect(
      await multipartOf([
        ["a", "2"],
        ["f", Buffer.from("xyz")],
      ]),
    ).not.toBe(base);
    expect(
      await multipartOf([
        ["a", "1"],
        ["f", Buffer.from("xyZ")],
      ]),
    ).not.toBe(base);
    expect(
      await multipartOf([
        ["b", "1"],
        ["f", Buffer.from("xyz")],
      ]),
    ).not.toBe(base);
    // Length prefixes keep a value from running into the next name.
    expect(await multipartOf([["a", "1f"]])).not.toBe(await multipartOf([["a1", "f"]]));
  });

  it("a byte body is bound to its method and path", async () => {
    const of = async (method: string, path: string, body: string) => {
      const fp = new BodyFingerprint(method, path);
      await pipeline(
        Readable.from([Buffer.from(body)]),
        fp.tap(),
        new Writable({ write: (_c, _e, d) => d() }),
      );
      return fp.finish();
    };
    const base = await of("POST", "/v1/causal-analysis", '{"a":1}');
    expect(await of("POST", "/v1/causal-analysis", '{"a":1}')).toBe(base);
    expect(await of("POST", "/v1/causal-analysis", '{"a":2}')).not.toBe(base);
    expect(await of("POST", "/v1/predictions", '{"a":1}')).not.toBe(base);
    expect(pathOf("/v1/x?y=1")).toBe("/v1/x");
  });
});
