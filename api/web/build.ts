/**
 * Builds the web app into dist/ with Vite. `--if-stale` skips the build when dist/ is newer
 * than every input (npm start runs it that way, so a fresh clone builds once and a restart
 * costs nothing). Prints the size of the JavaScript, gzipped, and fails above the budget.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const REPO = join(HERE, "..", "..");
const DIST = join(HERE, "dist");
const STAMP = join(DIST, ".built");
/** The JavaScript budget of the app, gzipped. */
export const JS_BUDGET_BYTES = 400 * 1024;

/** What the bundle is made of: the app, and the schemas and graph code it imports. */
const INPUTS = [
  join(HERE, "src"),
  join(HERE, "index.html"),
  join(HERE, "vite.config.ts"),
  join(HERE, "package.json"),
  join(REPO, "package-lock.json"),
  join(REPO, "api", "src", "schemas"),
  join(REPO, "api", "src", "client"),
  join(REPO, "crds", "src"),
  join(REPO, "runner", "src", "graph"),
];

function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return readdirSync(path).reduce((m, name) => Math.max(m, newest(join(path, name))), s.mtimeMs);
}

export function isStale(): boolean {
  if (!existsSync(STAMP) || !existsSync(join(DIST, "index.html"))) return true;
  const built = statSync(STAMP).mtimeMs;
  return INPUTS.some((p) => newest(p) > built);
}

/** Gzipped bytes of every .js file of dist/assets. */
export function gzippedJsBytes(): number {
  const dir = join(DIST, "assets");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".js"))
    .reduce((sum, f) => sum + gzipSync(readFileSync(join(dir, f)), { level: 9 }).length, 0);
}

/** .br and .gz twins of the bundle files, which the server sends to browsers that accept them. */
function precompress(): void {
  const dir = join(DIST, "assets");
  for (const f of readdirSync(dir).filter((name) => /\.(js|css)$/.test(name))) {
    const body = readFileSync(join(dir, f));
    writeFileSync(join(dir, `${f}.gz`), gzipSync(body, { level: 9 }));
    writeFileSync(
      join(dir, `${f}.br`),
      brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
    );
  }
}

export async function buildWebApp(options: { ifStale?: boolean } = {}): Promise<void> {
  if (options.ifStale && !isStale()) return;
  const { build } = await import("vite");
  const t0 = performance.now();
  await build({ configFile: join(HERE, "vite.config.ts") });
  precompress();
  const js = gzippedJsBytes();
  writeFileSync(STAMP, new Date().toISOString() + "\n");
  const kb = (js / 1024).toFixed(1);
  console.error(
    `web app built in ${((performance.now() - t0) / 1000).toFixed(1)} s: JavaScript ${kb} KiB gzipped`,
  );
  if (js > JS_BUDGET_BYTES)
    throw new Error(`the web app's JavaScript is ${kb} KiB gzipped, above the 400 KiB budget`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildWebApp({ ifStale: process.argv.includes("--if-stale") });
}
