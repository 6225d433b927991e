/**
 * Download links of the filesystem store (embedded mode): the API serves them itself at
 * `/files/<token>`. The token is the object key, the download name and the expiry sealed
 * with AES-256-GCM under a key derived from the server secret, so it is opaque (no key or
 * path is visible), cannot be forged or altered, and expires.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { z } from "zod";
import type { UrlSigner } from "@causeway/runner/storage";

const Sealed = z.object({ k: z.string().min(1), f: z.string(), e: z.number().int() });

export interface DownloadGrant {
  key: string;
  filename: string;
  expiresAtMs: number;
}

export class DownloadTokens {
  private readonly key: Buffer;

  constructor(serverSecret: string) {
    this.key = Buffer.from(hkdfSync("sha256", serverSecret, "causeway-download", "v1", 32));
  }

  seal(grant: DownloadGrant): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const plain = JSON.stringify({ k: grant.key, f: grant.filename, e: grant.expiresAtMs });
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
  }

  /** The grant of a valid, unexpired token; null otherwise (tampered, foreign, expired). */
  open(token: string, nowMs: number): DownloadGrant | null {
    try {
      const raw = Buffer.from(token, "base64url");
      if (raw.length < 29) return null;
      const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      const plain = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
      const g = Sealed.parse(JSON.parse(plain));
      if (g.e <= nowMs) return null;
      return { key: g.k, filename: g.f, expiresAtMs: g.e };
    } catch {
      return null;
    }
  }

  /** A UrlSigner for FsObjectStore producing absolute links under `baseUrl`. */
  signer(baseUrl: string, now: () => number = Date.now): UrlSigner {
    return (key, options) =>
      `${baseUrl}/files/${this.seal({ key, filename: options.filename, expiresAtMs: now() + options.expiresInSeconds * 1000 })}`;
  }
}
