import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importAndRegisterModel } from "../services/models/models.ts";
import { buildTestApp, FakeRunner, type TestApp } from "../testing/helper.ts";
import { DatabaseGauges } from "./db-gauges.ts";
import { registry } from "./metrics.ts";
import { sample } from "./testing.ts";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
}, 120_000);
afterAll(async () => t?.close());

describe("model bundle metrics", () => {
  it("times a bundle built by this process and reports every registered bundle's size", async () => {
    const manifest = {
      version: "v9",
      files: {
        "influence.f32": { sha256: "0".repeat(64), bytes: 3_000_000 },
        "ids.json": { sha256: "1".repeat(64), bytes: 1000 },
      },
    };
    const runner = new (class extends FakeRunner {
      override async importModel(): Promise<unknown> {
        return manifest;
      }
    })();
    const before = await registry.metrics();
    const result = await importAndRegisterModel(
      { db: t.ctx.db, store: t.store, runner },
      { networkPath: "network.tsv", hgncDir: "hgnc", version: "v9", scoring: "v1", makeDefault: false },
      () => {},
    );
    expect(result).toBe("imported");
    const after = await registry.metrics();
    const delta = (series: string) => sample(after, series) - sample(before, series);
    expect(delta("causeway_model_build_duration_seconds_count")).toBe(1);
    expect(delta("causeway_model_build_size_bytes_sum")).toBe(3_001_000);

    // The database gauge covers versions imported elsewhere too (the admin CLI).
    const gauges = new DatabaseGauges({ db: t.ctx.db, now: () => t.clock.now, defaultQuota: 100 });
    await gauges.sample();
    const text = await gauges.registry.metrics();
    expect(sample(text, 'causeway_model_bundle_size_bytes{version="v9"}')).toBe(3_001_000);
  });
});
