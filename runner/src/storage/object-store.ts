/**
 * Object storage as the whole service sees it: S3 in a cluster, a directory in embedded
 * mode and in local command-line runs. Keys are opaque to clients; they never leave the
 * service except inside a presigned URL.
 */
import type { Readable } from "node:stream";

export interface PresignOptions {
  /** Basename the download should be saved as (Content-Disposition). */
  filename: string;
  expiresInSeconds: number;
}

export interface ObjectStore {
  /** Stores a whole object; `body` may be a buffer, a string or a stream. */
  put(key: string, body: Buffer | string | Readable, contentType?: string): Promise<void>;
  /** Copies a local file into the store without reading it into memory. */
  putFile(key: string, path: string, contentType?: string): Promise<void>;
  /** Reads a whole object; throws ObjectNotFound when absent. */
  get(key: string): Promise<Buffer>;
  /**
   * Reads bytes [start, end) of an object; fewer (or none) when the object ends sooner.
   * Throws ObjectNotFound when absent. Previews read only the rows they return.
   */
  getRange(key: string, start: number, end: number): Promise<Buffer>;
  /** Copies an object to a local file (large inputs are read by path, e.g. by h5wasm). */
  getToFile(key: string, path: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Deletes every object under a prefix (cleanup of a rejected or expired job). */
  deletePrefix(prefix: string): Promise<void>;
  /** A time-limited download link for a client. */
  presignGet(key: string, options: PresignOptions): Promise<string>;
  /** Whether the store answers at all (readiness). */
  ping(): Promise<void>;
}

export class ObjectNotFound extends Error {
  readonly key: string;
  constructor(key: string) {
    super("object not found");
    this.name = "ObjectNotFound";
    this.key = key;
  }
}

/** Rejects keys that could escape a prefix or a directory ("..", absolute, empty segments). */
export function assertSafeKey(key: string): void {
  if (key.length === 0 || key.length > 1024 || key.startsWith("/") || key.includes("\\")) {
    throw new Error(`invalid object key`);
  }
  for (const segment of key.split("/")) {
    if (segment === "" || segment === "." || segment === "..") throw new Error(`invalid object key`);
  }
}

/** Rejects byte ranges that are negative, reversed or not whole numbers. */
export function assertRange(start: number, end: number): void {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new Error("invalid byte range");
  }
}
