/**
 * Fills Node's compile cache (NODE_COMPILE_CACHE, set by `npm start`) with every source file the
 * embedded server can run, type-stripped and compiled, before the server starts (`prestart`).
 *
 * Why: Node strips TypeScript with a WebAssembly build of SWC (amaro), which an isolate loads the
 * first time it strips a file that the cache lacks and then keeps for its lifetime: about 17 MB
 * resident in each of the API, the runner host and every runner thread. With every file already
 * in the cache none of them loads it, and their modules compile from V8's code cache.
 *
 * No module runs here: one synthetic module imports every file together with a name that does
 * not exist, so Node loads, strips and compiles the whole graph and then fails to link it before
 * any module is evaluated. The cache is an optimisation; a failure here is reported and ignored.
 */
import { readdirSync } from "node:fs";
import { flushCompileCache } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
/** What the embedded server runs: the API, the runner (jobs, importer, validator) and the contract. */
const SOURCE_DIRS = ["api/src", "runner/src", "crds/src"];
const UNLINKABLE = `import { notExported } from "data:text/javascript,export {}";`;

/** Product sources under `SOURCE_DIRS`, as file URLs (tests are not run by the server). */
export function serverSources(repo: string = REPO): string[] {
  return SOURCE_DIRS.flatMap((dir) =>
    readdirSync(join(repo, dir), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.endsWith(".d.ts"))
      .map((f) => pathToFileURL(join(repo, dir, f)).href),
  );
}

/** Loads `files` into the compile cache without evaluating them. */
export async function warmCompileCache(files: readonly string[]): Promise<void> {
  const graph = files.map((url) => `import ${JSON.stringify(url)};`).join("\n") + `\n${UNLINKABLE}`;
  // The import always fails: at best at the unlinkable name, once the graph is loaded and compiled.
  await import(`data:text/javascript,${encodeURIComponent(graph)}`).catch((err: unknown) => {
    if (err instanceof SyntaxError && err.message.includes("notExported")) return;
    process.stderr.write(`compile cache not warmed: ${err instanceof Error ? err.message : String(err)}\n`);
  });
}

if (import.meta.main) {
  // Node enabled the cache from the environment; without it there is nothing to fill.
  if (process.env.NODE_COMPILE_CACHE) {
    await warmCompileCache(serverSources());
    flushCompileCache();
  }
}
