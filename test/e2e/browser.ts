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
import { chromium, type Browser, type Page } from "playwright-core";

export const CHROMIUM = process.env.CAUSEWAY_CHROMIUM ?? "/usr/bin/chromium";
export const hasChromium = (): boolean => existsSync(CHROMIUM);

export interface Chromium {
  browser: Browser;
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile and nothing that reaches the network on its own. */
export async function launchChromium(): Promise<Chromium> {
  const profile = await mkdtemp(join(tmpdir(), "causeway-chromium-"));
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${profile}`,
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
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
  await page.goto(url, { waitUntil: "commit" });
  // Evaluated in the page (a string: this file is compiled without the DOM's types).
  const ready = `(() => {
    const row = document.querySelector('[data-testid="target-row"]');
    const graph = document.querySelector('[data-testid="causal-graph"] canvas, img[data-testid="causal-graph"]');
    return row && graph ? performance.now() : null;
  })()`;
  const handle = await page.waitForFunction(ready, undefined, { polling: "raf", timeout: 30_000 });
  return (await handle.jsonValue()) as number;
}

let axeSource: string | null = null;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: number;
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
            violations: { id: string; impact: string | null; help: string; nodes: unknown[] }[];
          }>;
        };
      }
    ).axe;
    const r = await axe.run();
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }));
  });
  return result.filter((v) => v.impact === "serious" || v.impact === "critical");
}
