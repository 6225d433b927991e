/**
 * Request fingerprints for Idempotency-Key. A fingerprint is a SHA-256 of
 * the method, the path and the body. A multipart body is hashed part by part (field name, then
 * the value or the file's bytes as they stream), not as raw bytes: a retried upload carries a new
 * random boundary, and the same form must fingerprint the same. Unknown text fields, which the
 * form handler ignores, are not part of it.
 */
import { createHash, type Hash } from "node:crypto";
import { Transform, type TransformCallback } from "node:stream";

function lengthPrefixed(hash: Hash, text: string): void {
  const bytes = Buffer.from(text, "utf8");
  hash.update(`${bytes.length}:`);
  hash.update(bytes);
}

/** A request's fingerprint: method and path first, then what a subclass feeds from the body. */
abstract class Fingerprint {
  protected readonly hash: Hash;
  private digest: string | null = null;

  constructor(method: string, path: string) {
    this.hash = createHash("sha256");
    lengthPrefixed(this.hash, method.toUpperCase());
    lengthPrefixed(this.hash, path);
  }

  /** Whether the whole body went through (the fingerprint is ready). */
  get complete(): boolean {
    return this.digest !== null;
  }

  /** The fingerprint; a request without a body hashes as an empty one. */
  finish(): string {
    this.digest ??= this.hash.digest("hex");
    return this.digest;
  }
}

/** Fingerprint of a multipart request, fed part by part while the body is read. */
export class MultipartFingerprint extends Fingerprint {
  field(name: string, value: string): void {
    this.hash.update("f");
    lengthPrefixed(this.hash, name);
    lengthPrefixed(this.hash, value);
  }

  /** A pass-through stream hashing a file part's bytes; the file's own hash closes the part. */
  file(name: string): Transform {
    const outer = this.hash;
    const inner = createHash("sha256");
    return new Transform({
      transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
        inner.update(chunk);
        done(null, chunk);
      },
      flush(done: TransformCallback) {
        outer.update("b");
        lengthPrefixed(outer, name);
        outer.update(inner.digest());
        done();
      },
    });
  }
}

/** Fingerprint of a request whose body is hashed as bytes (JSON), fed by the stream of `tap()`. */
export class BodyFingerprint extends Fingerprint {
  /** A pass-through stream for the raw body (a preParsing hook's replacement payload). */
  tap(): Transform {
    const hash = this.hash;
    return new Transform({
      transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
        hash.update(chunk);
        done(null, chunk);
      },
    });
  }
}

/** The request path without its query string. */
export function pathOf(url: string): string {
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}
