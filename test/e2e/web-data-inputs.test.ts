/**
 * Real files through the web form, in Debian's Chromium against the
 * embedded server: the Kang merged file with its obs columns renamed, the five-cell-type PBMC
 * file with one cell type chosen on the page from the file's own levels, the mouse split pair
 * with species mouse, and an edgeR table as the DE table. Each one is also submitted with
 * `causeway submit` with the same inputs, and the page's top 10 (proxies unfolded, as the API
 * ranks them) must equal the command line's `causeway top -n 10`.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWebApp } from "../../api/web/build.ts";
import { OBS_CAP_PER_ARM } from "../../api/web/src/pages/new-prediction/cli-fields.ts";
import { MAX_OBSERVATIONS } from "../../runner/src/jobs/prediction-job.ts";
import { writeAnnData } from "../../runner/src/anndata/index.ts";
import { writeKangRenamed } from "../../runner/test/fixtures/anndata/kang-renamed.ts";
import { ORTHOLOGUE_FILE, OrthologueTable } from "../../runner/src/symbols/index.ts";
import { waitFor } from "../harness/proc.ts";
import { HGNC_DIR, KANG_DIR } from "../shared-data.ts";
import {
  hasChromium,
  launchChromium,
  seriousViolations,
  signIn,
  traceCspViolations,
  type Chromium,
  PHONE,
  screenshotBothWidths,
} from "./browser.ts";
import { runCli, cliEnv } from "./causeway-cli.ts";
import { startEmbeddedServer, type EmbeddedServer } from "./embedded-server.ts";

const SPLIT = join(KANG_DIR, "split_cd14mono");
const PBMC = join(KANG_DIR, "kang2018_ifnb_pbmc.h5ad");
const EDGER = join(SPLIT, "pseudobulk_edgeR_results.tsv");
const CELL_TYPE = "CD14+ Monocytes";
const RENAMED_COLUMNS = {
  condition_column: "arm",
  control_level: "unstim",
  sample_column: "individual",
  cell_type_column: "annot",
};
/** The app keeps its requests under the edge limit: a request may wait up to a minute for its slot. */
const LIMIT_WAIT_MS = 70_000;
const SHOTS = join(tmpdir(), `causeway-web-data-${new Date().toISOString().replace(/[:.]/g, "-")}`);

let server: EmbeddedServer;
let key: string;
let work: string;
let chrome: Chromium;
let page: Page;
const problems: string[] = [];
/** The command line's prediction of each case, submitted in beforeAll so that they run meanwhile. */
const cliJobs = new Map<string, Promise<string>>();
/** The predictions submitted from the form. */
const webIds: string[] = [];

/** Runs the CLI; a failed or timed-out command says how it ended and what the server was doing. */
async function causeway(args: string[]): Promise<string> {
  const run = await runCli(args, cliEnv(server.base, key, work));
  if (run.code === 0) return run.stdout;
  throw new Error(
    `causeway ${args.slice(0, 3).join(" ")} … ended with exit ${run.code}, signal ${run.signal ?? "none"}\n` +
      `stderr:\n${run.stderr}\nserver log (tail):\n${server.log().slice(-3000)}`,
  );
}

const lastJson = (stdout: string): unknown => JSON.parse(stdout.trim().split("\n").at(-1)!);

/** Submits with `causeway submit … --json`; the prediction's id. */
async function cliSubmit(args: string[]): Promise<string> {
  const out = lastJson(await causeway(["submit", "--job-type", "target_id", ...args, "--json"]));
  return (out as { prediction_id: string }).prediction_id;
}

async function completed(id: string): Promise<void> {
  const status = await waitFor(
    `prediction ${id} to finish`,
    async () => {
      const res = await fetch(`${server.base}/v1/predictions/${id}?max_rows=1`, {
        headers: { "x-api-key": key },
      });
      const s = (await res.json()) as { status: string; error_message?: string | null };
      return s.status === "completed" || s.status === "failed" ? s : undefined;
    },
    { timeoutMs: 280_000, intervalMs: 1000 },
  );
  expect(status.status, `${id}: ${status.error_message ?? ""}\n${server.log().slice(-3000)}`).toBe(
    "completed",
  );
}

/** `causeway top <id> -n 10`: the entity ids of the first ten rows. */
async function cliTop10(id: string): Promise<string[]> {
  const rows = lastJson(await causeway(["top", id, "-n", "10", "--format", "json"])) as { id: string }[];
  return rows.map((r) => r.id);
}

/**
 * The page at 1440×900 and 390×844 (screenshots kept in SHOTS): nothing wider than the phone's
 * screen, and no serious or critical axe violation.
 */
async function shotBoth(name: string): Promise<void> {
  const width = await screenshotBothWidths(page, SHOTS, name);
  expect(width, `${name} is ${width} px wide at 390 px`).toBeLessThanOrEqual(PHONE.width);
  const violations = await seriousViolations(page);
  expect(violations, `${name}: ${JSON.stringify(violations)}`).toEqual([]);
}

/** Opens the new-prediction form, lets `fill` fill it in, submits; the new prediction's id. */
async function submitFromForm(fill: () => Promise<void>): Promise<string> {
  await page.goto(`${server.base}/app/new`);
  await fill();
  await page.click('button[type="submit"]');
  await page.waitForURL(/\/app\/predictions\/[0-9a-f-]{36}$/, { timeout: 60_000 });
  return page.url().split("/").at(-1)!;
}

/** The page's top 10 once the prediction completed, proxies unfolded (the API's own order). */
async function pageTop10(name: string): Promise<string[]> {
  const status = page.locator('[data-testid="prediction-status"]');
  await expect
    .poll(() => status.textContent(), { timeout: 280_000, interval: 1000 })
    .toMatch(/completed|failed/);
  expect(await status.textContent(), (await page.textContent("main")) ?? "").toContain("completed");
  const rows = page.locator('tbody:not(.pinned-body) [data-testid="target-row"]');
  await rows.first().waitFor({ timeout: LIMIT_WAIT_MS });
  // Models that name proxies fold them under their hub by default; the API's order has them apart.
  const fold = page.locator('input[name="fold_proxies"]');
  if ((await fold.count()) > 0) await fold.uncheck();
  await expect.poll(() => rows.count(), { timeout: LIMIT_WAIT_MS }).toBeGreaterThanOrEqual(10);
  await shotBoth(`${name}-result`);
  const ids: string[] = [];
  for (const row of (await rows.all()).slice(0, 10)) ids.push((await row.getAttribute("data-id"))!);
  return ids;
}

async function chooseMerged(file: string): Promise<void> {
  await page.check('input[name="shape"][value="merged"]');
  await page.setInputFiles('input[name="dataset"]', file);
  // The page reads the file's obs before upload and names its columns.
  await page.locator('[data-testid="obs-summary"]').waitFor({ timeout: 60_000 });
}

/** The cell type chosen from the file's own levels (a select once the page has read them). */
async function chooseCellType(): Promise<void> {
  const select = page.locator('select[name="cell_type"]');
  await select.waitFor();
  expect(await select.locator("option").allTextContents()).toContain(CELL_TYPE);
  await select.selectOption(CELL_TYPE);
  await expect.poll(() => page.textContent('[data-testid="arms-table"] caption')).toContain(CELL_TYPE);
}

describe("the page's observation cap", () => {
  it("is the runner's (the web app keeps a copy: it may not import the runner)", () => {
    expect(OBS_CAP_PER_ARM).toBe(MAX_OBSERVATIONS);
  });
});

if (!hasChromium() && process.env.CI)
  throw new Error("chromium is missing: test/harness/setup.sh should have installed it");

describe.skipIf(!hasChromium())("real files from the web form, as from the command line", () => {
  const files = {
    renamed: "",
    mousePair: "",
    mouseDegs: "",
  };

  beforeAll(async () => {
    await buildWebApp({ ifStale: true });
    await mkdir(SHOTS, { recursive: true });
    console.log(`web data screenshots: ${SHOTS}`);
    work = await mkdtemp(join(tmpdir(), "causeway-web-data-"));
    files.renamed = join(work, "kang-renamed.h5ad");
    const mouseMerged = join(work, "kang-mouse.h5ad");
    await writeKangRenamed(PBMC, files.renamed);
    await writeKangRenamed(PBMC, mouseMerged, { mouse: { hgncDir: HGNC_DIR } });
    // The split DEGs as mouse symbols (one-to-one orthologues), as a mouse study would list them.
    const orthologues = OrthologueTable.fromBuffer(await readFile(join(HGNC_DIR, ORTHOLOGUE_FILE)));
    const human = JSON.parse(await readFile(join(SPLIT, "degs.json"), "utf8")) as string[];
    const mouse = human.map((s) => orthologues.mouseOf(s)).filter((s): s is string => s !== null);
    expect(mouse.length).toBeGreaterThan(human.length * 0.6);
    files.mouseDegs = join(work, "mouse-degs.json");
    await writeFile(files.mouseDegs, JSON.stringify(mouse));

    server = await startEmbeddedServer({
      CAUSEWAY_EDGE_LIMIT: "100000",
      CAUSEWAY_INFLIGHT_LIMIT: "100",
      CAUSEWAY_MODEL_VERSIONS: "v1",
    });
    key = await server.newAccount("internal", "web-data");
    // The mouse split pair, written by `causeway prepare` from the mouse merged file.
    files.mousePair = join(work, "mouse-pair");
    await causeway([
      "prepare",
      mouseMerged,
      ...Object.entries(RENAMED_COLUMNS).flatMap(([k, v]) => [`--${k.replaceAll("_", "-")}`, v]),
      "--cell-type",
      CELL_TYPE,
      "--out",
      files.mousePair,
    ]);

    const columnFlags = Object.entries(RENAMED_COLUMNS).flatMap(([k, v]) => [
      `--${k.replaceAll("_", "-")}`,
      v,
    ]);
    cliJobs.set("renamed", cliSubmit(["--dataset", files.renamed, ...columnFlags, "--cell-type", CELL_TYPE]));
    cliJobs.set("pbmc", cliSubmit(["--dataset", PBMC, "--cell-type", CELL_TYPE]));
    cliJobs.set(
      "mouse",
      cliSubmit([
        "--control",
        join(files.mousePair, "control.h5ad"),
        "--perturbed",
        join(files.mousePair, "perturbed.h5ad"),
        "--degs",
        files.mouseDegs,
        "--species",
        "mouse",
      ]),
    );
    cliJobs.set(
      "edger",
      cliSubmit([
        "--control",
        join(SPLIT, "control.h5ad"),
        "--perturbed",
        join(SPLIT, "perturbed.h5ad"),
        "--degs-table",
        EDGER,
      ]),
    );
    // A failed submission is reported by the test that awaits it, not as an unhandled rejection.
    for (const p of cliJobs.values()) p.catch(() => undefined);

    chrome = await launchChromium({ width: 1440, height: 900 });
    await traceCspViolations(chrome.context);
    page = chrome.context.pages()[0] ?? (await chrome.context.newPage());
    page.on("console", (m) => {
      if (m.type() === "error" || /Content Security Policy/.test(m.text()))
        problems.push(`${page.url()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`${page.url()}: ${e.message}`));
    await signIn(page, server.base, key);
  }, 600_000);

  afterAll(async () => {
    await chrome?.close();
    await server?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  /** The web job's top 10 (on the page) against the command line's for the same inputs. */
  async function sameTop10(name: string, webId: string): Promise<void> {
    webIds.push(webId);
    const shown = await pageTop10(name);
    const cliId = await cliJobs.get(name)!;
    await completed(cliId);
    expect(shown, `${name}: the page's top 10`).toEqual(await cliTop10(cliId));
    // The command line reads the web job's table the same way.
    expect(await cliTop10(webId)).toEqual(shown);
  }

  it("the merged file with renamed obs columns, named on the page", async () => {
    const id = await submitFromForm(async () => {
      await chooseMerged(files.renamed);
      for (const [name, value] of Object.entries(RENAMED_COLUMNS)) await page.fill(`#${name}`, value);
      await chooseCellType();
      await shotBoth("renamed-form");
    });
    // The upload keeps the file's own name: the default label is made from it.
    await expect.poll(() => page.textContent("h1")).toMatch(/^kang-renamed target_id \d{4}-/);
    await sameTop10("renamed", id);
  });

  it("the five-cell-type PBMC file, one cell type chosen on the page", async () => {
    const id = await submitFromForm(async () => {
      await chooseMerged(PBMC);
      // Its columns are found by name: the arms table shows the file's five cell types.
      await page.locator('[data-testid="arms-table"]').waitFor();
      const before = (await page.textContent('[data-testid="arms-table"]'))!;
      expect(before.match(/\(\d+\)/g)?.length, before).toBeGreaterThanOrEqual(10);
      await chooseCellType();
      await shotBoth("pbmc-form");
    });
    await sameTop10("pbmc", id);
  });

  it("the mouse split pair with species mouse", async () => {
    const id = await submitFromForm(async () => {
      await page.setInputFiles('input[name="dataset_control"]', join(files.mousePair, "control.h5ad"));
      await page.setInputFiles('input[name="dataset_pert"]', join(files.mousePair, "perturbed.h5ad"));
      await page.selectOption('select[name="species"]', "mouse");
      await page.setInputFiles('input[name="degs_file"]', files.mouseDegs);
      await expect
        .poll(() => page.textContent('[data-testid="deg-feedback"]'), { timeout: LIMIT_WAIT_MS })
        .toMatch(/^[\d,]+ of [\d,]+ genes are in the model/);
      await shotBoth("mouse-form");
    });
    await sameTop10("mouse", id);
  });

  it("an edgeR table as the DE table", async () => {
    const id = await submitFromForm(async () => {
      await page.setInputFiles('input[name="dataset_control"]', join(SPLIT, "control.h5ad"));
      await page.setInputFiles('input[name="dataset_pert"]', join(SPLIT, "perturbed.h5ad"));
      await page.getByLabel("A DE table (--degs-table)").check();
      await page.setInputFiles('input[name="degs_table"]', EDGER);
      await expect
        .poll(() => page.textContent('[data-testid="deg-feedback"]'), { timeout: LIMIT_WAIT_MS })
        .toMatch(/^[\d,]+ of [\d,]+ genes are in the model/);
      await shotBoth("edger-form");
    });
    await sameTop10("edger", id);
  });

  it("reads a European spreadsheet's DE table, and says why a broken one cannot be read", async () => {
    // The edgeR table as a spreadsheet with a decimal comma saves it: semicolons, quoted names.
    const lines = (await readFile(EDGER, "utf8")).trim().split("\n");
    const semicolon = join(work, "edger semicolon.csv");
    await writeFile(
      semicolon,
      lines
        .map((l, i) =>
          l
            .split("\t")
            .map((c) => (i === 0 || Number.isNaN(Number(c)) ? `"${c}"` : c.replace(".", ",")))
            .join(";"),
        )
        .join("\r\n"),
    );
    const broken = join(work, "broken table.csv");
    await writeFile(broken, 'gene,logFC,FDR\n"ISG15,8.1,1e-50\nMX1,6.2,1e-40\n');
    await page.goto(`${server.base}/app/new`);
    await page.getByLabel("A DE table (--degs-table)").check();
    await page.setInputFiles('input[name="degs_table"]', semicolon);
    await expect
      .poll(() => page.textContent('[data-testid="deg-feedback"]'), { timeout: LIMIT_WAIT_MS })
      .toMatch(/^[\d,]+ of [\d,]+ genes are in the model/);
    await page.setInputFiles('input[name="degs_table"]', broken);
    const alert = page.locator('p[role="alert"]', { hasText: "broken table.csv" });
    await alert.waitFor({ timeout: LIMIT_WAIT_MS });
    expect(await alert.textContent()).toMatch(/broken table\.csv: cannot be read as a table/);
    await shotBoth("de-table-unreadable");
  });

  it("says before upload when a condition has more observations than the service accepts, with the prepare command", async () => {
    // 1,200 observations per condition (X holds one count per cell: only obs matters here).
    const n = 2400;
    const big = join(work, "big file.h5ad");
    await writeAnnData(big, {
      X: {
        nRows: n,
        nCols: 3,
        indptr: Int32Array.from({ length: n + 1 }, (_, i) => i),
        indices: new Int32Array(n),
        data: new Float64Array(n).fill(1),
      },
      obs: {
        index: Array.from({ length: n }, (_, i) => `cell${i}`),
        columns: new Map([
          [
            "condition",
            { kind: "strings", values: Array.from({ length: n }, (_, i) => (i % 2 ? "stim" : "ctrl")) },
          ],
          ["donor", { kind: "strings", values: Array.from({ length: n }, (_, i) => `d${i % 4}`) }],
          [
            "cell_type",
            {
              kind: "strings",
              values: Array.from({ length: n }, (_, i) => (i % 3 ? "B cells" : "NK cells")),
            },
          ],
        ]),
        skipped: [],
      },
      var: { index: ["A1BG", "STAT1", "IRF1"], columns: new Map(), skipped: [] },
    });
    await page.goto(`${server.base}/app/new`);
    await chooseMerged(big);
    const notice = page.locator('[data-testid="obs-cap"]');
    await notice.waitFor();
    expect(await notice.textContent()).toContain("ctrl has 1,200, stim has 1,200");
    expect(await notice.locator("code").textContent()).toBe(
      "causeway prepare 'big file.h5ad' --max-obs 1000 --out prepared",
    );
    await shotBoth("obs-cap-form");
    // One cell type brings each condition under the cap: the notice goes.
    await page.selectOption('select[name="cell_type"]', "NK cells");
    await expect.poll(() => notice.count()).toBe(0);
  });

  it("opens six result pages within a minute under the edge limit, and every section of each fills", async () => {
    const ids = [...webIds, ...(await Promise.all(cliJobs.values()))].slice(0, 6);
    expect(ids).toHaveLength(6);
    for (const id of ids) await completed(id);
    // The contract's edge limit (30 requests a minute per address) from here on; this test's
    // own requests stop, so every request counted is the browser's.
    await server.restart({ CAUSEWAY_EDGE_LIMIT: "30", CAUSEWAY_EDGE_WINDOW_SECONDS: "60" });
    // Six signed-in tabs, as a person opens results side by side (each tab has its own
    // sessionStorage, so the key is put there as the sign-in form would).
    const base = server.base;
    await chrome.context.addInitScript(
      ([origin, apiKey]) => {
        const w = globalThis as unknown as {
          location: { origin: string };
          sessionStorage: { setItem(k: string, v: string): void };
        };
        if (w.location.origin === origin) w.sessionStorage.setItem("causeway.api_key", apiKey);
      },
      [base, key] as const,
    );
    const refused: string[] = [];
    /** Every request of the tabs to the service, to show the busiest minute when one is refused. */
    const sent: { at: number; path: string }[] = [];
    let apiRequests = 0;
    const tabs: Page[] = [];
    const opened = Date.now();
    for (const id of ids) {
      const tab = await chrome.context.newPage();
      tab.on("console", (m) => {
        if (m.type() === "error" || /Content Security Policy/.test(m.text()))
          problems.push(`${tab.url()}: ${m.text()}`);
      });
      tab.on("pageerror", (e) => problems.push(`${tab.url()}: ${e.message}`));
      tab.on("request", (r) => {
        const u = new URL(r.url());
        if (u.pathname.startsWith("/v1/")) apiRequests++;
        if (u.origin === base) sent.push({ at: Date.now(), path: u.pathname });
      });
      tab.on("response", (r) => {
        if (r.status() === 403) refused.push(new URL(r.url()).pathname);
      });
      await tab.goto(`${base}/app/predictions/${id}`, { waitUntil: "commit" });
      tabs.push(tab);
    }
    expect(Date.now() - opened, "six pages opened within a minute").toBeLessThan(60_000);
    try {
      for (const [i, tab] of tabs.entries()) {
        const which = `page ${i + 1} (${ids[i]})`;
        // Filled: no section still loading or waiting, the table, the volcano, the downloads and
        // the dataset card there, and no section showing a failure instead.
        const isFilled = async () =>
          (await tab.locator('[data-testid="pending"]').count()) === 0 &&
          (await tab.locator('tbody:not(.pinned-body) [data-testid="target-row"]').count()) >= 10 &&
          (await tab.locator('[data-testid="volcano-plot"] svg').count()) > 0 &&
          (await tab.locator('[data-testid="downloads"] li').count()) >= 5 &&
          (await tab.locator('[data-testid="dataset-card"]').count()) > 0;
        const until = Date.now() + 180_000;
        while (!(await isFilled()) && Date.now() < until) await tab.waitForTimeout(1000);
        await tab.screenshot({ path: join(SHOTS, `six-pages-${i + 1}-1440.png`), fullPage: true });
        expect(await isFilled(), `${which} is not filled: ${await tab.textContent("body")}`).toBe(true);
        expect(await tab.locator('.error, [role="alert"]').allTextContents(), which).toEqual([]);
      }
    } finally {
      const busiest = Math.max(
        ...sent.map((a) => sent.filter((b) => b.at >= a.at && b.at < a.at + 60_000).length),
      );
      if (refused.length > 0)
        console.log(
          `busiest minute: ${busiest} requests; the first 40:\n${sent
            .slice(0, 40)
            .map((r) => `${r.at - opened} ms ${r.path.slice(0, 60)}`)
            .join("\n")}`,
        );
      console.log(
        `six result pages: ${apiRequests} API requests in ${Math.round((Date.now() - opened) / 1000)} s; refused (403): ${refused.join(", ") || "none"}`,
      );
    }
    for (const tab of tabs) await tab.close();
  });

  it("logged no console error and no CSP violation", () => {
    expect(problems).toEqual([]);
  });
});
