/**
 * The result page's table and its accessibility in Chromium, against a fake completed prediction
 * served through Playwright's routing (the rest of the app, sign-in included, is the embedded
 * server's): a result of 10,908 candidates whose 90 % set holds 8,129, so that what the page says
 * about the set can be checked on any sort, page or search without running a job. Also: the
 * table's place kept in the address (Back from a column's "?" comes back to it, a page number
 * can be typed), a re-sort in flight shown as loading, focus on the new page's h1 after a
 * client-side change of page, the tab's title, the row count announced, and a downloaded file
 * named after the prediction.
 */
import { mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWebApp } from "../../api/web/build.ts";
import {
  hasChromium,
  launchChromium,
  seriousViolations,
  signIn,
  type Chromium,
  PHONE,
  WIDE,
  screenshotBothWidths,
} from "./browser.ts";
import { startEmbeddedServer, type EmbeddedServer } from "./embedded-server.ts";

const ID = "0badc0de-1111-4222-8333-444455556666";
const TOTAL = 10_908;
const SET_SIZE = 8_129;
const SHOTS = join(tmpdir(), `causeway-web-results-${new Date().toISOString().replace(/[:.]/g, "-")}`);
/** The app keeps to its request budget (24 a minute): a step late in the test may wait it out. */
const WAIT = 70_000;

let server: EmbeddedServer;
let chrome: Chromium;
let page: Page;

/** The fake table: candidate i has rank i, probability falling with rank, pvalue rising except every 7th. */
const ROWS = Array.from({ length: TOTAL }, (_, i) => ({
  id: `G${i}|PROTEIN`,
  probability: 0.05 / (i + 1),
  score: 10 - i / 1000,
  rank: i,
  pvalue: i % 7 === 0 ? 1e-12 * (i + 1) : 1e-3 * (i + 1),
  in_prediction_set: i < SET_SIZE,
  prediction_set_size: SET_SIZE,
}));
const COLUMNS = Object.keys(ROWS[0]!);

function status(base: string) {
  return {
    prediction_id: ID,
    status: "completed",
    created_at: "2026-11-27T21:10:41.500Z",
    started_at: "2026-11-27T21:10:43.181Z",
    completed_at: "2026-11-27T21:10:44.018Z",
    error_message: null,
    error_code: null,
    error_detail: null,
    label: "Kang CD14 IFN-b ligand",
    job_type: "target_id",
    model_version: "v4",
    target: null,
    dataset_summary: {
      cell_type: null,
      disease_label: null,
      n_cells: null,
      n_genes: null,
      n_perturbations: null,
      n_degs: 433,
    },
    results: [],
    source_influence_matrix: null,
    artifacts: [{ name: "target_scores.tsv", url: `${base}/files/fake-target-scores` }],
    processing_step: "results_uploaded",
    progress_pct: 100,
    warnings: [],
  };
}

/** GET …/targets as the service answers it, over the fake table; a pvalue sort answers late. */
async function targets(route: Route): Promise<void> {
  const u = new URL(route.request().url());
  const sort = u.searchParams.get("sort") ?? "rank";
  const order = u.searchParams.get("order") ?? "asc";
  const offset = Number(u.searchParams.get("offset") ?? 0);
  const limit = Number(u.searchParams.get("limit") ?? 50);
  const q = (u.searchParams.get("q") ?? "").toUpperCase();
  const key = sort as keyof (typeof ROWS)[number];
  const selected = ROWS.filter((r) => !q || r.id.startsWith(q)).sort((a, b) => {
    const d = Number(a[key]) - Number(b[key]);
    return order === "asc" ? d : -d;
  });
  if (sort === "pvalue") await new Promise((r) => setTimeout(r, 2000));
  await route.fulfill({
    json: {
      prediction_id: ID,
      result_set: "",
      columns: COLUMNS,
      total_rows: TOTAL,
      matched_rows: selected.length,
      offset,
      limit,
      sort,
      order,
      rows: selected.slice(offset, offset + limit).map((cells) => ({ cells })),
      pinned: null,
    },
  });
}

async function fakePrediction(p: Page): Promise<void> {
  await p.route(`**/v1/predictions/${ID}/targets**`, targets);
  await p.route(`**/v1/predictions/${ID}?**`, (route) => route.fulfill({ json: status(server.base) }));
  await p.route(`**/v1/causal-analysis?**`, (route) => route.fulfill({ json: { items: [] } }));
  await p.route(`**/files/fake-target-scores`, (route) =>
    route.fulfill({
      body: "id\tscore\nSTAT1|PROTEIN\t7.2\n",
      headers: {
        "content-type": "application/octet-stream",
        "content-disposition": 'attachment; filename="target_scores.tsv"',
      },
    }),
  );
}

const note = () => page.textContent('[data-testid="prediction-set-note"]');
const footer = () => page.textContent('[data-testid="target-table-footer"]');
const SET_SENTENCE = "The 90 % prediction set holds 8,129 of 10,908 candidates (75 %)";

async function shot(name: string): Promise<void> {
  const width = await screenshotBothWidths(page, SHOTS, name);
  expect(width, `${name} is ${width} px wide at 390 px`).toBeLessThanOrEqual(PHONE.width);
}

if (!hasChromium() && process.env.CI)
  throw new Error("chromium is missing: test/harness/setup.sh should have installed it");

describe.skipIf(!hasChromium())("the result page's table and announcements in Chromium", () => {
  beforeAll(async () => {
    await buildWebApp({ ifStale: true });
    await mkdir(SHOTS, { recursive: true });
    console.log(`web results screenshots: ${SHOTS}`);
    server = await startEmbeddedServer({ CAUSEWAY_EDGE_LIMIT: "100000" });
    const key = await server.newAccount("internal", "web-results");
    chrome = await launchChromium(WIDE);
    page = chrome.context.pages()[0] ?? (await chrome.context.newPage());
    await fakePrediction(page);
    await signIn(page, server.base, key);
  }, 300_000);

  afterAll(async () => {
    await chrome?.close();
    await server?.stop();
  });

  it("moves focus to the new page's h1 and titles the tab by the prediction's label and status", async () => {
    // A client-side change of page (the app's own link), as a person following a link would.
    await page.evaluate(`(() => {
      const a = document.createElement("a");
      a.href = "/app/predictions/${ID}";
      a.textContent = "fake";
      document.querySelector("main").append(a);
      a.click();
    })()`);
    await page.waitForSelector('[data-testid="target-row"]', { timeout: WAIT });
    await expect.poll(() => page.evaluate("document.activeElement.tagName")).toBe("H1");
    expect(await page.evaluate("document.activeElement.textContent")).toBe("Kang CD14 IFN-b ligand");
    expect(await page.title()).toBe("Kang CD14 IFN-b ligand (completed) · causeway");
    // The job's live region is on the page, polite, before anything changes.
    expect(await page.getAttribute('[data-testid="job-announcer"]', "role")).toBe("status");
  });

  it("says how large the 90 % set is from the result, whatever the sort, page or search", async () => {
    await expect.poll(note, { timeout: WAIT }).toContain(SET_SENTENCE);
    expect(await note()).toContain("these data say little about which protein drove the change");
    await page.evaluate(`document.querySelector('[data-testid="prediction-set-note"]').scrollIntoView()`);
    await shot("result-set-note");
    await page.click('button[data-column="probability"]');
    await expect.poll(footer, { timeout: WAIT }).toBe("Rows 1–50 of 10,908 candidates");
    expect(await note()).toContain(SET_SENTENCE);
    await page.click('button:text-is("Next")');
    await expect.poll(footer, { timeout: WAIT }).toBe("Rows 51–100 of 10,908 candidates");
    expect(await note()).toContain(SET_SENTENCE);
    await page.fill('[data-testid="target-search"]', "G12");
    await expect.poll(footer, { timeout: WAIT }).toBe("Rows 1–50 of 111 (10,908 candidates in all)");
    expect(await note()).toContain(SET_SENTENCE);
    // The row count after a search is in a live region.
    expect(await page.getAttribute('[data-testid="target-table-footer"]', "role")).toBe("status");
    await page.fill('[data-testid="target-search"]', "NOTHING");
    await expect.poll(footer, { timeout: WAIT }).toContain("0 rows");
    expect(await note()).toContain(SET_SENTENCE);
    await page.fill('[data-testid="target-search"]', "");
    await expect.poll(footer, { timeout: WAIT }).toBe("Rows 1–50 of 10,908 candidates");
  }, 300_000);

  it("shows a re-sort in flight as loading, not old rows under the new arrow", async () => {
    await page.click('button[data-column="pvalue"]');
    await expect
      .poll(() => page.getAttribute('[data-testid="target-table"]', "aria-busy"), { timeout: WAIT })
      .toBe("true");
    expect(await footer()).toContain("Loading");
    await expect
      .poll(() => page.getAttribute('[data-testid="target-table"]', "aria-busy"), { timeout: WAIT })
      .toBe("false");
    expect(await page.getAttribute('[data-testid="target-row"]', "data-id")).toBe("G0|PROTEIN");
    expect(await page.getAttribute('[data-testid="target-row"] >> nth=1', "data-id")).toBe("G7|PROTEIN");
  }, 180_000);

  it("keeps the table's place in the address: a page number, then Back from a column's '?'", async () => {
    await page.fill('[data-testid="page-input"]', "3");
    await page.press('[data-testid="page-input"]', "Enter");
    await expect.poll(footer, { timeout: WAIT }).toBe("Rows 101–150 of 10,908 candidates");
    expect(new URL(page.url()).search).toBe("?sort=pvalue&offset=100");
    await page.evaluate(`document.querySelector('.pager').scrollIntoView({ block: "center" })`);
    await shot("result-pager");
    await page.click('a[href="/app/how-to-read#col-qvalue"], a[href="/app/how-to-read#col-pvalue"]');
    await page.waitForURL(/how-to-read/);
    await expect.poll(() => page.evaluate("document.activeElement.tagName")).toBe("H1");
    await page.goBack();
    await expect.poll(footer, { timeout: WAIT }).toBe("Rows 101–150 of 10,908 candidates");
    expect(await page.getAttribute('th[aria-sort="ascending"] button', "data-column")).toBe("pvalue");
    // A reload, or the link shared, opens the same place; the last page is one click away.
    await page.reload();
    await expect.poll(footer, { timeout: WAIT }).toBe("Rows 101–150 of 10,908 candidates");
    await page.click('button[aria-label="Last page"]');
    await expect.poll(footer, { timeout: WAIT }).toBe("Rows 10,901–10,908 of 10,908 candidates");
    expect(await seriousViolations(page)).toEqual([]);
  }, 300_000);

  it("names a downloaded file after the prediction", async () => {
    await page.evaluate(`document.querySelector('[data-testid="downloads"]').scrollIntoView()`);
    await shot("result-downloads");
    const [download] = await Promise.all([
      page.waitForEvent("download", { timeout: WAIT }),
      page.click('[data-testid="downloads"] a:text-is("target_scores.tsv")'),
    ]);
    expect(download.suggestedFilename()).toBe("Kang-CD14-IFN-b-ligand_0badc0de_target_scores.tsv");
  }, 180_000);
});
