export * from "./object-store.ts";
export { FsObjectStore, type UrlSigner } from "./fs-store.ts";
export { S3ObjectStore, type S3StoreConfig } from "./s3-store.ts";
