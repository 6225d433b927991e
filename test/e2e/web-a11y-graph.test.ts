/**
 * The result page's pictures from the keyboard, in Chromium, against a fake completed target
 * validation of STAT1 served through Playwright's routing (sign-in and the app are the embedded
 * server's): the causal graph's nodes as a list whose Enter shows a node's paths as a click does,
 * the volcano's genes as a searchable list whose Enter finds the gene among the candidates as a
 * click on its dot does, text alternatives that say what each picture shows, the look at 1440
 * and 390 px; and a page whose first read found no network: a "Try again" beside the error, and
 * a read of its own when the browser comes back online.
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

const ID = "5ca1ab1e-2222-4333-8444-555566667777";
const SHOTS = join(tmpdir(), `causeway-web-a11y-graph-${new Date().toISOString().replace(/[:.]/g, "-")}`);
/** The app keeps to its request budget (24 a minute): a step late in the test may wait it out. */
const WAIT = 70_000;

let server: EmbeddedServer;
let chrome: Chromium;
let page: Page;

/** STAT1 reaches 12 DEGs: 4 directly, the others through IRF1, IRF9 or STAT2 (and IRF9 through IRF1). */
const VIA: Record<string, string[]> = {
  GBP1: ["IRF1"],
  CXCL10: [],
  ISG15: ["IRF9"],
  MX1: ["IRF9"],
  IFIT1: ["STAT2"],
  OAS1: ["STAT2"],
  IRF7: [],
  SOCS1: [],
  IFI6: ["IRF1", "IRF9"],
  RSAD2: ["STAT2"],
  CD14: ["IRF1"],
  TAP1: [],
};
const DEGS = Object.keys(VIA);
const GRAPH_INPUTS = {
  version: 1,
  target: "STAT1|PROTEIN",
  model_version: "v4",
  options: { min_path_probability: 1e-4, min_path_fraction: 0.1, max_path_length: 6 },
  degs: DEGS.map((g, i) => ({ id: `${g}|RNA`, score_deg_given_target: 0.4 / (i + 1) })),
  paths: DEGS.map((g, i) => {
    const nodes = ["STAT1", ...VIA[g]!].map((s) => `${s}|PROTEIN`).concat(`${g}|RNA`);
    return {
      deg: `${g}|RNA`,
      nodes,
      score_path_given_target: 0.2 / (i + 1),
      edge_signs: nodes.slice(1).map((_, k) => (g === "CD14" && k === nodes.length - 2 ? -1 : 1)),
      edge_types: nodes.slice(1).map((_, k) => (k === nodes.length - 2 ? "transcriptional" : "signaling")),
    };
  }),
  log2fc: {
    STAT1: 2.1,
    IRF1: 3.4,
    IRF9: null,
    STAT2: 1.2,
    ...Object.fromEntries(DEGS.map((g, i) => [g, g === "CD14" ? -2.5 : 5 - i / 3])),
  },
};
/** The DE table: the graph's DEGs (most significant first: GBP1), and 300 genes that are not DEGs. */
const DEGS_TSV = [
  "gene\tlog2FC\tpvalue\tpadj\tis_deg",
  ...DEGS.map((g, i) => `${g}\t${g === "CD14" ? -2.5 : 5 - i / 3}\t1e-${60 - i * 3}\t1e-${58 - i * 3}\tTRUE`),
  ...Array.from(
    { length: 300 },
    (_, i) => `NG${i}\t${((i % 21) - 10) / 20}\t0.${i + 100}\t0.${i + 200}\tFALSE`,
  ),
].join("\n");

const TARGET_ROWS = ["STAT1", "IRF1", "GBP1", "STAT2", "CD14"].map((s, i) => ({
  id: `${s}|PROTEIN`,
  probability: 0.3 / (i + 1),
  score: 8 - i,
  rank: i + 1,
}));

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
    label: "STAT1 in IFN-b monocytes",
    job_type: "target_validation",
    model_version: "v4",
    target: "STAT1|PROTEIN",
    dataset_summary: {
      cell_type: null,
      disease_label: null,
      n_cells: null,
      n_genes: null,
      n_perturbations: null,
      n_degs: DEGS.length,
    },
    results: [],
    source_influence_matrix: null,
    artifacts: [
      { name: "causal_graph_inputs.json", url: `${base}/files/fake-graph-inputs` },
      { name: "degs.tsv", url: `${base}/files/fake-degs` },
    ],
    processing_step: "results_uploaded",
    progress_pct: 100,
    warnings: [],
  };
}

/** GET …/targets over the five rows (a search keeps the symbols it starts). */
async function targets(route: Route): Promise<void> {
  const u = new URL(route.request().url());
  const q = (u.searchParams.get("q") ?? "").toUpperCase();
  const rows = TARGET_ROWS.filter((r) => !q || r.id.startsWith(q));
  await route.fulfill({
    json: {
      prediction_id: ID,
      result_set: "",
      columns: Object.keys(TARGET_ROWS[0]!),
      total_rows: TARGET_ROWS.length,
      matched_rows: rows.length,
      offset: 0,
      limit: Number(u.searchParams.get("limit") ?? 50),
      sort: u.searchParams.get("sort") ?? "rank",
      order: u.searchParams.get("order") ?? "asc",
      rows: rows.map((cells) => ({ cells })),
      pinned: null,
    },
  });
}

/** Whether the status read answers, or fails as a lost network does. */
let offline = false;

async function fakePrediction(p: Page): Promise<void> {
  await p.route(`**/v1/predictions/${ID}/targets**`, targets);
  await p.route(`**/v1/predictions/${ID}?**`, (route) =>
    offline ? route.abort("internetdisconnected") : route.fulfill({ json: status(server.base) }),
  );
  await p.route(`**/files/fake-graph-inputs`, (route) => route.fulfill({ json: GRAPH_INPUTS }));
  await p.route(`**/files/fake-degs`, (route) =>
    route.fulfill({ body: DEGS_TSV, headers: { "content-type": "text/tab-separated-values" } }),
  );
}

/** The focused element as "TAG:role:text" (evaluated in the page). */
const active = () =>
  page.evaluate(`(() => {
    const a = document.activeElement;
    return a ? a.tagName + ":" + (a.getAttribute("role") ?? "") + ":" + (a.textContent ?? "").trim() : "";
  })()`) as Promise<string>;
const nodeList = '[data-testid="graph-node-list"]';
const side = '[data-testid="graph-side"]';

async function shot(name: string): Promise<void> {
  const width = await screenshotBothWidths(page, SHOTS, name);
  expect(width, `${name} is ${width} px wide at 390 px`).toBeLessThanOrEqual(PHONE.width);
}

if (!hasChromium() && process.env.CI)
  throw new Error("chromium is missing: test/harness/setup.sh should have installed it");

describe.skipIf(!hasChromium())("the causal graph and the volcano from the keyboard in Chromium", () => {
  beforeAll(async () => {
    await buildWebApp({ ifStale: true });
    await mkdir(SHOTS, { recursive: true });
    console.log(`web a11y graph screenshots: ${SHOTS}`);
    server = await startEmbeddedServer({ CAUSEWAY_EDGE_LIMIT: "100000" });
    const key = await server.newAccount("internal", "web-a11y-graph");
    chrome = await launchChromium(WIDE);
    page = chrome.context.pages()[0] ?? (await chrome.context.newPage());
    await fakePrediction(page);
    await signIn(page, server.base, key);
    await page.goto(`${server.base}/app/predictions/${ID}`);
    await page.waitForSelector('[data-testid="causal-graph"][data-target-position]', { timeout: WAIT });
    await page.waitForSelector('[data-testid="volcano-plot"] svg', { timeout: WAIT });
  }, 300_000);

  afterAll(async () => {
    await chrome?.close();
    await server?.stop();
  });

  it("says what the graph and the volcano show, in their text alternatives", async () => {
    expect(await page.getAttribute('[data-testid="causal-graph"]', "aria-label")).toBe(
      "Causal graph of STAT1: 4 proteins, 16 edges, from STAT1 to 12 DEGs. Its nodes are listed below the graph.",
    );
    expect(await page.getAttribute('[data-testid="volcano-plot"]', "aria-label")).toBe(
      "Volcano plot of 312 genes of the DE table: 12 DEGs, 11 up and 1 down; most significant: GBP1, CXCL10, ISG15. " +
        "Its genes can be searched in the list below the plot.",
    );
  });

  it("opens a node's paths from the keyboard as a click does, and clears them with Escape", async () => {
    // The folded list is one tab stop after the graph's toolbar.
    await page.focus('[data-testid="export-svg"]');
    let steps = 0;
    while (!(await active()).startsWith("SUMMARY:") && steps++ < 10) await page.keyboard.press("Tab");
    expect(await active()).toContain("The 16 nodes as a list");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Tab");
    // The list: the target first, then the intermediaries, then the DEGs; one tab stop.
    expect(await active()).toBe("LI:option:STAT1, target");
    await page.keyboard.press("ArrowDown");
    const second = await active();
    expect(second).toMatch(/^LI:option:(IRF1|IRF9|STAT2), intermediary protein$/);
    // Typing a name moves to it.
    await page.keyboard.type("irf1");
    expect(await active()).toBe("LI:option:IRF1, intermediary protein");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.textContent(`${side} h4`)).toContain("IRF1");
    const paths = await page.$$eval('[data-testid="node-paths"] li', (li) => li.map((x) => x.textContent));
    expect(paths).toHaveLength(3);
    expect(paths.join("\n")).toContain("STAT1 → IRF1 → GBP1");
    expect(paths.join("\n")).toContain("STAT1 → IRF1 → IRF9 → IFI6");
    // The graph shows it as a click does, and the choice is told to a screen reader.
    expect(await page.getAttribute('[data-testid="causal-graph"]', "data-selected")).toBe("IRF1|PROTEIN");
    expect(await page.getAttribute(`${nodeList} [data-id="IRF1|PROTEIN"]`, "aria-selected")).toBe("true");
    expect(await page.textContent(".graph-wrap [role=status]")).toBe(
      "IRF1: 3 paths through it, shown with the graph.",
    );
    // Focus stays in the list, on the chosen node.
    expect(await active()).toBe("LI:option:IRF1, intermediary protein");
    await page.keyboard.press("End");
    await page.keyboard.press("Space");
    await expect.poll(() => page.textContent(`${side} h4`)).toMatch(/DEG/);
    await page.keyboard.press("Escape");
    await expect.poll(() => page.textContent(side)).toContain("Click a node");
    expect(await page.getAttribute('[data-testid="causal-graph"]', "data-selected")).toBe("");
  });

  it("marks a node clicked in the graph in the list too", async () => {
    const [x, y] = (await page.getAttribute('[data-testid="causal-graph"]', "data-target-position"))!
      .split(",")
      .map(Number);
    await page.click('[data-testid="causal-graph"]', { position: { x: x!, y: y! } });
    await expect.poll(() => page.textContent(`${side} h4`)).toContain("STAT1");
    expect(await page.getAttribute(`${nodeList} [data-id="STAT1|PROTEIN"]`, "aria-selected")).toBe("true");
    expect(await page.getAttribute(`${nodeList} [data-id="STAT1|PROTEIN"]`, "tabindex")).toBe("0");
  });

  it("finds a gene of the volcano among the candidates from the keyboard", async () => {
    await page.focus('[data-testid="volcano-gene-list"] summary');
    await page.keyboard.press("Enter");
    await page.keyboard.press("Tab");
    expect(await active()).toMatch(/^INPUT/);
    // With nothing typed, the most significant genes are listed.
    const listed = await page.$$eval('[data-testid="volcano-genes"] [role=option]', (o) =>
      o.map((x) => x.getAttribute("data-id")),
    );
    expect(listed.slice(0, 3)).toEqual(["GBP1", "CXCL10", "ISG15"]);
    await page.keyboard.type("cd1");
    await expect
      .poll(() => page.$$eval('[data-testid="volcano-genes"] [role=option]', (o) => o.length))
      .toBe(1);
    await page.keyboard.press("Tab");
    expect(await active()).toMatch(/^LI:option:CD14, log2FC -2\.50/);
    await page.evaluate(`document.querySelector('[data-testid="volcano-gene-list"]').scrollIntoView()`);
    await shot("volcano-gene-list");
    await page.focus('[data-testid="volcano-genes"] [role=option]');
    await page.keyboard.press("Enter");
    // What a click on the dot does: the table searched for it, the dot marked; focus on the search.
    await expect.poll(() => page.inputValue('[data-testid="target-search"]')).toBe("CD14");
    await expect
      .poll(() => page.evaluate("document.activeElement.getAttribute('data-testid')"))
      .toBe("target-search");
    await expect
      .poll(() => page.$$eval('[data-testid="target-row"]', (r) => r.map((x) => x.getAttribute("data-id"))), {
        timeout: WAIT,
      })
      .toEqual(["CD14|PROTEIN"]);
    expect(await page.textContent(".plots")).toContain("Showing CD14.");
    // Enter in the search picks the first gene listed.
    await page.fill('[data-testid="volcano-gene-search"]', "gbp");
    await page.press('[data-testid="volcano-gene-search"]', "Enter");
    await expect.poll(() => page.inputValue('[data-testid="target-search"]')).toBe("GBP1");
  }, 180_000);

  it("keeps the pictures' look and fits a phone with the lists open; no serious axe violation", async () => {
    await page.evaluate(`document.getElementById("graph").scrollIntoView()`);
    await shot("graph-node-list");
    expect(await seriousViolations(page)).toEqual([]);
  }, 180_000);

  it("offers to try again after a first read lost to the network, and reads again when back online", async () => {
    offline = true;
    await page.reload();
    await expect
      .poll(() => page.textContent('[data-testid="load-error"]'), { timeout: WAIT })
      .toContain("The service did not answer");
    expect(await page.getAttribute('[data-testid="load-error"]', "role")).toBe("alert");
    await page.screenshot({ path: join(SHOTS, "network-error-1440.png") });
    // Tried again while still offline: the error again, the button still there.
    await page.click('[data-testid="try-again"]');
    await expect.poll(() => page.isVisible('[data-testid="try-again"]'), { timeout: WAIT }).toBe(true);
    // From the keyboard, once the network is back: the page, with focus on its heading.
    offline = false;
    await page.focus('[data-testid="try-again"]');
    await page.keyboard.press("Enter");
    await page.waitForSelector("h1.title-text", { timeout: WAIT });
    await expect.poll(() => page.evaluate("document.activeElement.tagName")).toBe("H1");
    // Lost again on a reload; the browser's coming back online reads the page by itself.
    offline = true;
    await page.reload();
    await page.waitForSelector('[data-testid="try-again"]', { timeout: WAIT });
    await chrome.context.setOffline(true);
    offline = false;
    await chrome.context.setOffline(false);
    await page.waitForSelector("h1.title-text", { timeout: WAIT });
    expect(await page.textContent("h1")).toBe("STAT1 in IFN-b monocytes");
  }, 300_000);
});
