/**
 * The status body's fast rendering (matrix cells formatted straight to JSON text) against the
 * reference rendering the route used before (presenter, response schema encode, JSON.stringify):
 * the same bytes, on a real Kang target_validation result and on hand-picked float32 values.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARTIFACTS } from "@causeway/contract";
import { encodeNpyFloat32 } from "@causeway/runner/artifacts";
import { kangValidationResult, type KangResult } from "@causeway/runner/testing";
import type { Tier } from "../../db/accounts.ts";
import type { PredictionRow } from "../../db/jobs.ts";
import { PredictionStatusResponse, StatusQuery } from "../../schemas/predictions.ts";
import { matrixCellsJson, matrixPreview } from "./artifacts.ts";
import { presentPrediction } from "./present.ts";
import { PreparedPreviews, renderStatusBody, type StatusSizes } from "./status-body-render.ts";

let dir: string;
let kang: KangResult;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "causeway-status-render-"));
  kang = await kangValidationResult(dir, "results/p1/local-1");
}, 120_000);
afterAll(async () => rm(dir, { recursive: true, force: true }));

function completedRow(files: Record<string, string>): PredictionRow {
  return {
    id: "6dde1982-e184-4591-90da-0dd7757f539f",
    account_id: "a1",
    status: "completed",
    job_type: "target_validation",
    target: "STAT1|PROTEIN",
    label: 'Kang "CD14" — monocytes ✓ \\ </script>',
    model_version: "v1",
    input_prefix: "inputs/p1",
    quota_refunded: false,
    result_sets: null,
    dataset_summary: null,
    warnings: [{ code: "low_residual_df", message: "Few samples: read p-values with care." }],
    spec: {} as PredictionRow["spec"],
    processing_step: "results_uploaded",
    progress_pct: 100,
    error_code: null,
    error_message: null,
    error_detail: null,
    billable: true,
    result_files: files,
    created_at: new Date("2026-11-25T03:00:00.000Z"),
    started_at: new Date("2026-11-25T03:00:00.250Z"),
    completed_at: new Date("2026-11-25T03:00:00.800Z"),
  };
}

/** What the route sent before (links blank, as in a stored body). */
async function reference(p: PredictionRow, tier: Tier, sizes?: StatusSizes): Promise<string> {
  const q = StatusQuery.parse({});
  const body = await presentPrediction(p, { id: p.account_id, name: "", tier, apiKeyId: "" }, kang.store, 0, {
    maxRows: sizes?.maxRows ?? q.max_rows,
    maxSourceInfluenceRows: sizes?.maxSourceInfluenceRows ?? q.max_source_influence_rows,
    maxColumns: sizes?.maxColumns ?? q.max_columns,
    target: sizes?.target ?? undefined,
    withResults: true,
    links: async (files) =>
      Object.keys(files)
        .sort()
        .map((name) => ({ name, url: "" })),
  });
  return JSON.stringify(PredictionStatusResponse.encode(body));
}

async function objectsOf(files: Record<string, string>): Promise<Record<string, Uint8Array>> {
  const out: Record<string, Uint8Array> = {};
  for (const name of [
    ARTIFACTS.targetScores,
    ARTIFACTS.sourceInfluenceMatrix,
    ARTIFACTS.sourceInfluenceIds,
    ARTIFACTS.targetValidation,
  ]) {
    const key = files[name];
    if (key) out[key] = await kang.store.get(key);
  }
  return out;
}

describe("status body rendering", () => {
  const cases: [string, Tier, StatusSizes | undefined][] = [
    ["internal, default sizes", "internal", undefined],
    ["external, default sizes", "external", undefined],
    [
      "internal, a corner",
      "internal",
      { maxRows: 17, maxSourceInfluenceRows: 33, maxColumns: 5, target: null },
    ],
    [
      "external, another target",
      "external",
      { maxRows: 40, maxSourceInfluenceRows: 2, maxColumns: 512, target: "IRF1|PROTEIN" },
    ],
  ];
  for (const [name, tier, sizes] of cases) {
    it(`gives the reference bytes on a real Kang result (${name})`, async () => {
      const p = completedRow(kang.files);
      const rendered = await renderStatusBody({
        row: p,
        tier,
        objects: await objectsOf(kang.files),
        ...(sizes ? { sizes } : {}),
      });
      expect(rendered.ok).toBe(true);
      const text = Buffer.from(rendered.ok ? rendered.body : new Uint8Array()).toString("utf8");
      const want = await reference(p, tier, sizes);
      expect(text.length).toBe(want.length);
      expect(text === want).toBe(true);
      if (!sizes) {
        // The full preview: a matrix of thousands of rows, NaN cells as null.
        const body = JSON.parse(text) as { source_influence_matrix: { data: (number | null)[][] } };
        expect(body.source_influence_matrix.data.length).toBeGreaterThan(1000);
        expect(body.source_influence_matrix.data.flat()).toContain(null);
      }
    });
  }

  it("renders a body without a matrix, and refuses one the schema refuses", async () => {
    const { [ARTIFACTS.sourceInfluenceMatrix]: _npy, ...rest } = kang.files;
    const p = completedRow(rest);
    const rendered = await renderStatusBody({ row: p, tier: "internal", objects: await objectsOf(rest) });
    expect(rendered.ok && Buffer.from(rendered.body).toString("utf8")).toBe(await reference(p, "internal"));
    const bad = await renderStatusBody({
      row: { ...completedRow(kang.files), progress_pct: 1.5 },
      tier: "internal",
      objects: await objectsOf(kang.files),
    });
    expect(bad).toMatchObject({ ok: false, message: expect.stringContaining("invalid status body") });
  });

  it("uses previews prepared while the job ran only for the same artifact bytes, once", async () => {
    const p = completedRow(kang.files);
    const objects = await objectsOf(kang.files);
    const names = [ARTIFACTS.targetScores, ARTIFACTS.sourceInfluenceMatrix, ARTIFACTS.sourceInfluenceIds];
    const files = Object.fromEntries(names.map((n) => [n, kang.files[n]!]));
    const early = Object.fromEntries(names.map((n) => [kang.files[n]!, objects[kang.files[n]!]!]));
    const prepared = new PreparedPreviews();
    expect(await prepared.prepare(p.id, "internal", files, early)).toBe(true);
    // Not for other sizes or another tier; at the defaults, once.
    expect(
      prepared.take({
        row: p,
        tier: "internal",
        objects,
        sizes: { maxRows: 5, maxSourceInfluenceRows: 5, maxColumns: 5, target: null },
      }),
    ).toBeUndefined();
    expect(await prepared.prepare(p.id, "internal", files, early)).toBe(true);
    expect(prepared.take({ row: p, tier: "external", objects })).toBeUndefined();
    expect(await prepared.prepare(p.id, "internal", files, early)).toBe(true);
    const previews = prepared.take({ row: p, tier: "internal", objects });
    expect(previews).toBeDefined();
    expect(prepared.take({ row: p, tier: "internal", objects })).toBeUndefined();
    const rendered = await renderStatusBody({ row: p, tier: "internal", objects }, previews);
    expect(rendered.ok && Buffer.from(rendered.body).toString("utf8")).toBe(await reference(p, "internal"));
    // The same ETag as a render that makes its previews itself.
    const fresh = await renderStatusBody({ row: p, tier: "internal", objects });
    expect(fresh.ok && rendered.ok && fresh.etag === rendered.etag).toBe(true);
    // A score table rewritten after the previews were made: not used.
    expect(await prepared.prepare(p.id, "internal", files, early)).toBe(true);
    const key = kang.files[ARTIFACTS.targetScores]!;
    const changed = {
      ...objects,
      [key]: Buffer.from(String(Buffer.from(objects[key]!)).replace("STAT1", "STAT9")),
    };
    expect(prepared.take({ row: p, tier: "internal", objects: changed })).toBeUndefined();
    // Previews of a job that never completes are dropped after a while.
    const brief = new PreparedPreviews(4, 20);
    expect(await brief.prepare(p.id, "internal", files, early)).toBe(true);
    await new Promise((r) => setTimeout(r, 60));
    expect(brief.take({ row: p, tier: "internal", objects })).toBeUndefined();
  });

  it("formats float32 cells as JSON.stringify does after rounding to 9 digits", () => {
    const values = [
      0,
      -0,
      1,
      -1,
      0.5,
      0.1,
      1 / 3,
      -2 / 3,
      100,
      123456789,
      987654321,
      1e9,
      1.5e9,
      3e10,
      1e20,
      1e21,
      1.2e22,
      3.4028234663852886e38,
      -3.4028234663852886e38,
      1e-6,
      1.5e-6,
      9.99999e-7,
      1e-7,
      -2.5e-7,
      1.17549435e-38,
      1.4e-45,
      5e-40,
      Number.NaN,
      Infinity,
      -Infinity,
      6.51249838,
      10.8555631,
      8.10462808e-15,
      12345.6789,
    ];
    for (let i = 0; i < 2000; i++) values.push(Math.sin(i * 7.3) * 10 ** ((i % 40) - 20));
    const m = { rows: values.length / 2, cols: 2, data: new Float32Array(values) };
    const ids = {
      row_ids: Array.from({ length: m.rows }, (_, i) => `r${i}`),
      column_ids: ["a", "b"],
    };
    const want = matrixPreview(encodeNpyFloat32(m), ids, m.rows, 2).data;
    expect(matrixCellsJson(m, m.rows, 2).toString("latin1")).toBe(JSON.stringify(want));
    expect(matrixCellsJson(m, 3, 1).toString("latin1")).toBe(
      JSON.stringify(want.slice(0, 3).map((r) => r.slice(0, 1))),
    );
    expect(matrixCellsJson(m, 0, 2).toString("latin1")).toBe("[]");
  });
});
