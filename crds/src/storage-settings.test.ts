import { describe, expect, it } from "vitest";
import { storageEnvOf, storageSettingsFromEnv, type StorageSettings } from "./storage-settings.ts";

describe("storage settings through a runner's environment", () => {
  it.each<[string, StorageSettings]>([
    ["fs", { kind: "fs", dir: "/data/objects" }],
    ["s3, minimal", { kind: "s3", bucket: "results", region: "us-east-1", forcePathStyle: false }],
    [
      "s3, every setting",
      {
        kind: "s3",
        bucket: "results",
        region: "eu-west-1",
        endpoint: "http://minio:9000",
        forcePathStyle: true,
        accessKeyId: "key",
        secretAccessKey: "secret",
      },
    ],
  ])("%s: what the API writes is what the runner reads", (_name, settings) => {
    expect(storageSettingsFromEnv(storageEnvOf(settings))).toEqual(settings);
  });

  it("leaves the S3 keys out when they travel by reference", () => {
    const env = storageEnvOf(
      {
        kind: "s3",
        bucket: "results",
        region: "us-east-1",
        forcePathStyle: false,
        accessKeyId: "k",
        secretAccessKey: "s",
      },
      { withCredentials: false },
    );
    expect(env).not.toHaveProperty("AWS_ACCESS_KEY_ID");
    expect(env).not.toHaveProperty("AWS_SECRET_ACCESS_KEY");
  });

  it("names every bad variable in one error", () => {
    expect(() => storageSettingsFromEnv({ CAUSEWAY_STORAGE: "s3", S3_ENDPOINT: "not a url" })).toThrow(
      /S3_BUCKET.*S3_ENDPOINT|S3_ENDPOINT.*S3_BUCKET/,
    );
    expect(() => storageSettingsFromEnv({})).toThrow(/CAUSEWAY_STORAGE_DIR/);
  });
});
