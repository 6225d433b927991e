import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PredictionJobSpec } from "@causeway/contract";
import { getPrediction } from "../../db/jobs.ts";
import { PredictionStatusResponse, StatusQuery } from "../../schemas/predictions.ts";
import { matrixPreview, resultRows } from "../../services/status/artifacts.ts";
import { presentPrediction } from "../../services/status/present.ts";
import { StatusDocuments } from "../../services/status/status-documents.ts";
import {
  buildTestApp,
  completeJob,
  storedKeys,
  submit,
  validationArtifacts,
  type TestApp,
} from "../../testing/helper.ts";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ CAUSEWAY_INFLIGHT_LIMIT: "1000", CAUSEWAY_RATE_LIMIT: "100000" });
}, 120_000);
afterAll(async () => t.close());

const get = (key: string, url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ url, headers: { "x-api-key": key, ...headers } });

/** A bigger matrix than the shared fixture: NaN, infinities, float32 values needing 9 digits. */
function largerArtifacts(): Record<string, Buffer | string> {
  const files = validationArtifacts();
  const rows = 40;
  const cols = 7;
  const m = new Float32Array(rows * cols);
  for (let i = 0; i < m.length; i++) m[i] = i % 11 === 0 ? Number.NaN : Math.sin(i) * 10 ** ((i % 9) - 4);
  m[5] = Infinity;
  const header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${rows}, ${cols}), }`;
  const pad = " ".repeat((64 - ((10 + header.length + 1) % 64)) % 64);
  const h = Buffer.from(header + pad + "\n", "latin1");
  const prefix = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, 0, 0]);
  prefix.writeUInt16LE(h.length, 8);
  files["source_influence_matrix.npy"] = Buffer.concat([prefix, h, Buffer.from(m.buffer)]);
  files["source_influence_matrix.ids.json"] = JSON.stringify({
    row_ids: Array.from({ length: rows }, (_, i) => `P${i}|PROTEIN`),
    column_ids: Array.from({ length: cols }, (_, i) => `G${i}|RNA`),
  });
  const lines = [String(files["target_scores.tsv"]).split("\n")[0]!];
  for (let i = 0; i < 300; i++)
    lines.push(
      `P${i}|PROTEIN\tPROTEIN\t${(300 - i) / 7}\t${i}\t${i / 300}\t1e-${i % 20}\tNA\tFALSE\tTRUE\t1\t50\t0.1`,
    );
  files["target_scores.tsv"] = lines.join("\r\n") + "\r\n";
  return files;
}

/** What the route rendered before stored bodies: the presenter plus the response serializer. */
async function computed(id: string, accountId: string, tier: "internal" | "external", query = {}) {
  const p = (await getPrediction(t.ctx.db, accountId, id))!;
  const q = StatusQuery.parse(query);
  const body = await presentPrediction(p, { id: accountId, name: "", tier, apiKeyId: "" }, t.store, 3600, {
    maxRows: q.max_rows,
    maxSourceInfluenceRows: q.max_source_influence_rows,
    maxColumns: q.max_columns,
    target: q.target,
    withResults: true,
  });
  return JSON.stringify(PredictionStatusResponse.encode(body));
}

/** A StatusDocuments of its own over the test app's store and database (no shared cache). */
const statusDocuments = (options: { idleMs?: number } = {}) =>
  new StatusDocuments({
    store: t.store,
    db: t.ctx.db,
    presignTtlSeconds: 3600,
    now: () => t.clock.now,
    log: t.app.log,
    ...options,
  });

const blankUrls = (json: string) => json.replace(/"url":"[^"]*"/g, '"url":""');

describe("stored status bodies", () => {
  for (const tier of ["internal", "external"] as const) {
    it(`serves a completed ${tier} prediction at the defaults byte for byte as rendered, from storage`, async () => {
      const a = await t.account(tier);
      const id = await submit(t, a.key);
      await completeJob(t, "prediction", id, largerArtifacts());
      const res = await get(a.key, `/v1/predictions/${id}`);
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(res.headers.etag).toMatch(/^"[\w-]+"$/);
      const want = await computed(id, a.id, tier);
      expect(blankUrls(res.body)).toBe(blankUrls(want));
      expect(res.json().source_influence_matrix.data).toHaveLength(40);
      // Stored in the background, once rendered.
      await vi.waitFor(async () =>
        expect(
          (await storedKeys(t.store)).some((k) => k.endsWith(`${id}/test/status-body.${tier}.json`)),
        ).toBe(true),
      );
      // Non-default sizes give the same rows as a full read: small previews inline from ranged
      // reads (no ETag), larger ones rendered by the status worker (with one).
      for (const query of [
        { max_rows: 3, max_source_influence_rows: 2, max_columns: 3 },
        { max_rows: 299 },
        { max_rows: 300, max_columns: 1 },
      ]) {
        const qs = Object.entries(query)
          .map(([k, v]) => `${k}=${v}`)
          .join("&");
        const small = await get(a.key, `/v1/predictions/${id}?${qs}`);
        expect(small.headers.etag === undefined).toBe(query.max_rows !== 299);
        expect(blankUrls(small.body)).toBe(blankUrls(await computed(id, a.id, tier, query)));
        // ...and the same as parsing the whole artifacts.
        const q = StatusQuery.parse(query);
        const files = largerArtifacts();
        const body = small.json();
        expect(body.results).toEqual(
          resultRows(String(files["target_scores.tsv"]), q.max_rows, tier === "internal"),
        );
        expect(body.source_influence_matrix).toEqual(
          matrixPreview(
            files["source_influence_matrix.npy"] as Buffer,
            JSON.parse(String(files["source_influence_matrix.ids.json"])),
            q.max_source_influence_rows,
            q.max_columns,
          ),
        );
      }
    });
  }

  it("answers If-None-Match with 304, gzip when asked, and keeps links valid while cached", async () => {
    const a = await t.account("internal");
    const id = await submit(t, a.key);
    await completeJob(t, "prediction", id, largerArtifacts());
    const first = await get(a.key, `/v1/predictions/${id}`);
    const etag = first.headers.etag as string;
    const again = await get(a.key, `/v1/predictions/${id}`, { "if-none-match": etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe("");
    // The compressed copy is made in the background; until it is ready the body goes out as it is.
    let zipped = await get(a.key, `/v1/predictions/${id}`, { "accept-encoding": "br, gzip;q=0.8" });
    for (let i = 0; i < 100 && zipped.headers["content-encoding"] === undefined; i++) {
      expect(zipped.body).toBe(first.body);
      await new Promise((r) => setTimeout(r, 10));
      zipped = await get(a.key, `/v1/predictions/${id}`, { "accept-encoding": "br, gzip;q=0.8" });
    }
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(zipped.rawPayload).toString("utf8")).toBe(first.body);
    const plain = await get(a.key, `/v1/predictions/${id}`, { "accept-encoding": "gzip;q=0" });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    // Past half the link lifetime, links are signed again: a new ETag, the same results.
    t.clock.advance(1000 * (t.ctx.config.presignTtlSeconds / 2 + 1));
    const later = await get(a.key, `/v1/predictions/${id}`, { "if-none-match": etag });
    expect(later.statusCode).toBe(200);
    expect(later.headers.etag).not.toBe(etag);
    expect(blankUrls(later.body)).toBe(blankUrls(first.body));
    const link = later.json().artifacts[0].url as string;
    const download = await t.app.inject({ url: new URL(link).pathname });
    expect(download.statusCode).toBe(200);
  });

  it("renders the body on the first poll when none was stored, and re-renders a stale one", async () => {
    const a = await t.account("internal");
    const id = await submit(t, a.key);
    await completeJob(t, "prediction", id, largerArtifacts());
    await get(a.key, `/v1/predictions/${id}`);
    const key = await vi.waitFor(async () => {
      const found = (await storedKeys(t.store)).find((k) =>
        k.endsWith(`${id}/test/status-body.internal.json`),
      );
      expect(found).toBeDefined();
      return found!;
    });
    await t.store.delete(key);
    const fresh = statusDocuments();
    try {
      const p = (await getPrediction(t.ctx.db, a.id, id))!;
      const served = await fresh.serve(p, { id: a.id, name: "", tier: "internal", apiKeyId: "" });
      expect(blankUrls(served!.body.toString("utf8"))).toBe(blankUrls(await computed(id, a.id, "internal")));
      await vi.waitFor(async () => expect(await t.store.exists(key)).toBe(true));
      // A tampered stored body whose fingerprint no longer matches the row is not served.
      await t.store.put(
        key,
        (await t.store.get(key)).toString("utf8").replace(/"head":"[^"]+"/, '"head":"x"'),
      );
      const other = statusDocuments();
      const again = await other.serve(p, { id: a.id, name: "", tier: "internal", apiKeyId: "" });
      expect(blankUrls(again!.body.toString("utf8"))).toBe(blankUrls(await computed(id, a.id, "internal")));
      await vi.waitFor(async () =>
        expect((await t.store.get(key)).toString("utf8")).not.toContain('"head":"x"'),
      );
      await other.close();
    } finally {
      await fresh.close();
    }
  });

  it("lets a body no one read for the idle period go from memory, and serves it again from storage", async () => {
    const a = await t.account("internal");
    const id = await submit(t, a.key);
    await completeJob(t, "prediction", id, largerArtifacts());
    const docs = statusDocuments({ idleMs: 200 });
    try {
      const p = (await getPrediction(t.ctx.db, a.id, id))!;
      const account = { id: a.id, name: "", tier: "internal" as const, apiKeyId: "" };
      const first = await docs.serve(p, account);
      expect(docs.cachedBodies).toBe(1);
      await vi.waitFor(() => expect(docs.cachedBodies).toBe(0), { timeout: 5000, interval: 50 });
      const again = await docs.serve(p, account);
      expect(docs.cachedBodies).toBe(1);
      expect(blankUrls(again!.body.toString("utf8"))).toBe(blankUrls(first!.body.toString("utf8")));
      // Both serves started a compressed copy; let them finish before the workers are stopped.
      await Promise.all([first!.gzipped(), again!.gzipped()]);
    } finally {
      await docs.close();
    }
  });

  it("serves previews prepared at scores_computed when the files stayed the same, else the final files", async () => {
    for (const rewrite of [false, true]) {
      const a = await t.account("internal");
      const id = await submit(t, a.key);
      const spec = PredictionJobSpec.parse(t.dispatcher.specs.find((s) => s.job_id === id));
      const base = `${spec.output_prefix}/local-1/`;
      const files = largerArtifacts();
      for (const [name, body] of Object.entries(files)) await t.store.put(base + name, body);
      const progress = await t.callback({
        job_id: id,
        kind: "prediction",
        attempt: "local-1",
        seq: 5,
        status: "processing",
        processing_step: "scores_computed",
        progress_pct: 60,
      });
      expect(progress.statusCode).toBe(200);
      // What the callback started in the background, awaited here.
      await t.ctx.statusDocuments.scoresWritten(id, "local-1");
      if (rewrite)
        await t.store.put(
          base + "target_scores.tsv",
          String(files["target_scores.tsv"]).replace("P1|PROTEIN", "Q1|PROTEIN"),
        );
      const done = await t.callback({
        job_id: id,
        kind: "prediction",
        attempt: "local-1",
        seq: 99,
        status: "completed",
        result_files: Object.keys(files).map((name) => ({ name, key: base + name })),
        result_sets: [""],
        dataset_summary: null,
      });
      expect(done.statusCode).toBe(200);
      const res = await get(a.key, `/v1/predictions/${id}`);
      expect(res.statusCode).toBe(200);
      expect(blankUrls(res.body)).toBe(blankUrls(await computed(id, a.id, "internal")));
      expect(res.body.includes('"id":"Q1|PROTEIN"')).toBe(rewrite);
    }
  });
});
