export * from "./object-store.ts";
export { FsObjectStore, type UrlSigner } from "./fs-store.ts";
export type { S3StoreConfig } from "./s3-store.ts";
import type { ObjectStore } from "./object-store.ts";
import type { S3StoreConfig } from "./s3-store.ts";

/**
 * An S3 store, its SDK loaded on first use: the AWS SDK adds ~20 MB to every process that
 * imports it, and embedded mode (filesystem objects) never needs it. The class itself is
 * `@causeway/runner/storage/s3`.
 */
export async function openS3ObjectStore(config: S3StoreConfig): Promise<ObjectStore> {
  const { S3ObjectStore } = await import("./s3-store.ts");
  return new S3ObjectStore(config);
}
