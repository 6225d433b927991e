/**
 * Object storage on the local filesystem (embedded mode, command-line runs). Writes go to a
 * temporary file first and are renamed into place, so readers never see half an object.
 * Presigned links are made by a signer the API provides (it serves the downloads itself).
 */
import { createReadStream, createWriteStream } from "node:fs";
import { copyFile, mkdir, open, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { randomUUID } from "node:crypto";
import {
  ObjectNotFound,
  assertRange,
  assertSafeKey,
  type ObjectStore,
  type PresignOptions,
} from "./object-store.ts";

export type UrlSigner = (key: string, options: PresignOptions) => string;

export class FsObjectStore implements ObjectStore {
  readonly root: string;
  private readonly signer: UrlSigner | undefined;

  constructor(root: string, signer?: UrlSigner) {
    this.root = root;
    this.signer = signer;
  }

  /** Local path of a key; callers outside this module use it only to read files in place. */
  pathOf(key: string): string {
    assertSafeKey(key);
    return join(this.root, key);
  }

  async put(key: string, body: Buffer | string | Readable): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const tmp = `${path}.${randomUUID()}.tmp`;
    try {
      if (body instanceof Readable) await pipeline(body, createWriteStream(tmp));
      else await writeFile(tmp, body);
      await rename(tmp, path);
    } finally {
      await rm(tmp, { force: true });
    }
  }

  async putFile(key: string, path: string): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    const tmp = `${target}.${randomUUID()}.tmp`;
    try {
      await copyFile(path, tmp);
      await rename(tmp, target);
    } finally {
      await rm(tmp, { force: true });
    }
  }

  async get(key: string): Promise<Buffer> {
    try {
      return await readFile(this.pathOf(key));
    } catch (err) {
      throw notFoundOr(err, key);
    }
  }

  async getRange(key: string, start: number, end: number): Promise<Buffer> {
    assertRange(start, end);
    let handle;
    try {
      handle = await open(this.pathOf(key), "r");
    } catch (err) {
      throw notFoundOr(err, key);
    }
    try {
      const out = Buffer.alloc(end - start);
      let filled = 0;
      while (filled < out.length) {
        const { bytesRead } = await handle.read(out, filled, out.length - filled, start + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return filled === out.length ? out : out.subarray(0, filled);
    } finally {
      await handle.close();
    }
  }

  async getToFile(key: string, path: string): Promise<void> {
    try {
      await pipeline(createReadStream(this.pathOf(key)), createWriteStream(path));
    } catch (err) {
      throw notFoundOr(err, key);
    }
  }

  /** A read stream for serving downloads. */
  createReadStream(key: string): Readable {
    return createReadStream(this.pathOf(key));
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(key))).isFile();
    } catch {
      return false;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    const trimmed = prefix.replace(/\/+$/, "");
    await rm(this.pathOf(trimmed), { recursive: true, force: true });
  }

  async presignGet(key: string, options: PresignOptions): Promise<string> {
    if (!this.signer) throw new Error("this store has no URL signer");
    assertSafeKey(key);
    return this.signer(key, options);
  }

  async ping(): Promise<void> {
    await mkdir(this.root, { recursive: true });
  }
}

function notFoundOr(err: unknown, key: string): Error {
  if (err instanceof Error && "code" in err && err.code === "ENOENT") return new ObjectNotFound(key);
  return err instanceof Error ? err : new Error(String(err));
}
