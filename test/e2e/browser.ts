/**
 * Debian's Chromium driven by playwright-core (which downloads no browser), for the web app's
 * end-to-end test and its benchmark: launch, sign in through the page, time a page until it is
 * interactive, and an axe-core scan.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

export const CHROMIUM = process.env.CAUSEWAY_CHROMIUM ?? "/usr/bin/chromium";

/** The two widths every page is looked at: a laptop and a phone. */
export const WIDE = { width: 1440, height: 900 };
export const PHONE = { width: 390, height: 844 };

/**
 * Full-page screenshots of `page` at WIDE and PHONE (`<dir>/<name>-1440.png`, `-390.png`), back at
 * WIDE after; returns the page's width at the phone's, which must not pass PHONE.width.
 */
export async function screenshotBothWidths(page: Page, dir: string, name: string): Promise<number> {
  await page.setViewportSize(WIDE);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(dir, `${name}-1440.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(dir, `${name}-390.png`), fullPage: true });
  const width = (await page.evaluate("document.documentElement.scrollWidth")) as number;
  await page.setViewportSize(WIDE);
  return width;
}
export const hasChromium = (): boolean => existsSync(CHROMIUM);

export interface Chromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile and nothing that reaches the network on its own. */
export async function launchChromium(viewport = { width: 1360, height: 900 }): Promise<Chromium> {
  const profile = await mkdtemp(join(tmpdir(), "causeway-chromium-"));
  // Playwright passes the profile as --user-data-dir itself (a persistent context).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    acceptDownloads: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Makes every page of `context` log each Content-Security-Policy violation as a console error
 * that names where it came from (script file, line and column, and the refused text's start),
 * which Chromium's own message does not: a refused inline style is otherwise untraceable. The
 * listener is added through the DevTools protocol, which the pages' policy does not govern.
 */
export async function traceCspViolations(context: BrowserContext): Promise<void> {
  // Runs in the page (this file is compiled without the DOM's types, hence the casts).
  await context.addInitScript(() => {
    const page = globalThis as unknown as { addEventListener(type: string, f: (e: unknown) => void): void };
    page.addEventListener("securitypolicyviolation", (e) => {
      const v = e as {
        effectiveDirective: string;
        sourceFile: string;
        lineNumber: number;
        columnNumber: number;
        sample: string;
      };
      console.error(
        `Content Security Policy violation (${v.effectiveDirective}) at ${v.sourceFile}:${v.lineNumber}:${v.columnNumber}: ${JSON.stringify(v.sample)}`,
      );
    });
  });
}

/** Signs in through the form (the key lands in sessionStorage). */
export async function signIn(page: Page, base: string, key: string): Promise<void> {
  await page.goto(`${base}/app/sign-in`);
  await page.fill('input[name="api_key"]', key);
  await page.click('button[type="submit"]');
  await page.waitForURL(`${base}/app/`);
}

/**
 * Milliseconds from the navigation's start until the prediction page is interactive: its first
 * table row and its causal graph are on screen (read from the page's own clock, so the test
 * runner's polling adds nothing).
 */
export async function timeToInteractive(page: Page, url: string): Promise<number> {
  // This times the page, not the request budget the app's tabs share (api/web/src/shared-budget.ts):
  // its log of the last minute is emptied, as after a quiet minute. (Evaluated in the page.)
  await page
    .evaluate(
      () =>
        new Promise<void>((resolve) => {
          type Req = { result: unknown; onsuccess: (() => void) | null; onerror: (() => void) | null };
          type Db = {
            objectStoreNames: { contains(n: string): boolean };
            transaction(
              s: string,
              m: string,
            ): {
              objectStore(s: string): { put(v: unknown, k: string): unknown };
              oncomplete: (() => void) | null;
              onerror: (() => void) | null;
            };
            close(): void;
          };
          const idb = (
            globalThis as unknown as { indexedDB: { open(n: string): Req; deleteDatabase(n: string): Req } }
          ).indexedDB;
          const open = idb.open("causeway");
          open.onerror = () => resolve();
          open.onsuccess = () => {
            const db = open.result as Db;
            if (!db.objectStoreNames.contains("request_budget")) {
              // Opened here first: leave no empty database for the app to find.
              db.close();
              const del = idb.deleteDatabase("causeway");
              del.onsuccess = del.onerror = () => resolve();
              return;
            }
            const tx = db.transaction("request_budget", "readwrite");
            tx.objectStore("request_budget").put([], "times");
            tx.oncomplete = () => resolve(db.close());
            tx.onerror = () => resolve(db.close());
          };
        }),
    )
    .catch(() => undefined); // about:blank has no storage: nothing to empty
  await page.goto(url, { waitUntil: "commit" });
  // Runs in the page (this file is compiled without the DOM's types, hence the casts).
  const ready = () => {
    const doc = (globalThis as unknown as { document: { querySelector(s: string): unknown } }).document;
    const row = doc.querySelector('[data-testid="target-row"]');
    const graph = doc.querySelector('[data-testid="causal-graph"] canvas, img[data-testid="causal-graph"]');
    return row && graph ? performance.now() : null;
  };
  const handle = await page.waitForFunction(ready, undefined, { polling: "raf", timeout: 30_000 });
  return (await handle.jsonValue()) as number;
}

let axeSource: string | null = null;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: number;
  /** The first offending elements' markup. */
  where: string[];
}

/**
 * axe-core's violations of impact serious or critical on the current page. The script is
 * evaluated through the DevTools protocol, which the page's CSP does not govern (an injected
 * <script> would rightly be refused).
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= await readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(): Promise<{
            violations: { id: string; impact: string | null; help: string; nodes: { html: string }[] }[];
          }>;
        };
      }
    ).axe;
    const r = await axe.run();
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.length,
      where: (v.nodes as { html: string }[]).slice(0, 3).map((n) => n.html.slice(0, 160)),
    }));
  });
  return result.filter((v) => v.impact === "serious" || v.impact === "critical");
}
