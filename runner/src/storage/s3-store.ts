/**
 * Object storage on S3 or an S3-compatible server (path-style addressing for the latter).
 * Uploads stream through lib-storage so large inputs are never held in memory.
 */
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ClientConfig,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { createReadStream, createWriteStream } from "node:fs";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  ObjectNotFound,
  assertRange,
  assertSafeKey,
  type ObjectStore,
  type PresignOptions,
} from "./object-store.ts";

export interface S3StoreConfig {
  bucket: string;
  region: string;
  endpoint?: string | undefined;
  forcePathStyle?: boolean | undefined;
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
  /** Endpoint used only when signing client download links (when clients reach S3 at another address). */
  publicEndpoint?: string | undefined;
}

export class S3ObjectStore implements ObjectStore {
  private readonly client: S3Client;
  private readonly presignClient: S3Client;
  private readonly bucket: string;

  constructor(config: S3StoreConfig) {
    this.bucket = config.bucket;
    const base: S3ClientConfig = {
      region: config.region,
      forcePathStyle: config.forcePathStyle ?? false,
      ...(config.endpoint ? { endpoint: config.endpoint } : {}),
      ...(config.accessKeyId && config.secretAccessKey
        ? { credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } }
        : {}),
    };
    this.client = new S3Client(base);
    this.presignClient = config.publicEndpoint
      ? new S3Client({ ...base, endpoint: config.publicEndpoint })
      : this.client;
  }

  async put(key: string, body: Buffer | string | Readable, contentType?: string): Promise<void> {
    assertSafeKey(key);
    await new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: body, ContentType: contentType },
    }).done();
  }

  async putFile(key: string, path: string, contentType?: string): Promise<void> {
    await this.put(key, createReadStream(path), contentType);
  }

  async get(key: string): Promise<Buffer> {
    const body = await this.getStream(key);
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
    return Buffer.concat(chunks);
  }

  async getRange(key: string, start: number, end: number): Promise<Buffer> {
    assertSafeKey(key);
    assertRange(start, end);
    if (end === start) return Buffer.alloc(0);
    let body: Readable;
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=${start}-${end - 1}` }),
      );
      body = out.Body as Readable;
    } catch (err) {
      if (isNotFound(err)) throw new ObjectNotFound(key);
      // 416: the range starts at or past the end of the object.
      if (isRangeNotSatisfiable(err)) return Buffer.alloc(0);
      throw err;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
    return Buffer.concat(chunks);
  }

  async getToFile(key: string, path: string): Promise<void> {
    await pipeline(await this.getStream(key), createWriteStream(path));
  }

  private async getStream(key: string): Promise<Readable> {
    assertSafeKey(key);
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return out.Body as Readable;
    } catch (err) {
      throw isNotFound(err) ? new ObjectNotFound(key) : err;
    }
  }

  async exists(key: string): Promise<boolean> {
    assertSafeKey(key);
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async deletePrefix(prefix: string): Promise<void> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (keys.length > 0) {
        await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys } }));
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async presignGet(key: string, options: PresignOptions): Promise<string> {
    assertSafeKey(key);
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentDisposition: `attachment; filename="${options.filename.replace(/"/g, "")}"`,
    });
    return getSignedUrl(this.presignClient, command, { expiresIn: options.expiresInSeconds });
  }

  async ping(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
  }
}

function isNotFound(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === "NoSuchKey" || e.name === "NotFound" || e.$metadata?.httpStatusCode === 404;
}

function isRangeNotSatisfiable(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === "InvalidRange" || e.$metadata?.httpStatusCode === 416;
}
