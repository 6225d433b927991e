#!/usr/bin/env node
// @ts-check
/**
 * The `causeway` command's launcher. The CLI is TypeScript run by Node's type stripping, which
 * needs the Node this project pins (the `node` devDependency, 24.11 or later). Plain JavaScript
 * so that an older Node on PATH (a machine's Node 20) can start it: that one re-runs this file
 * under the pinned Node at once, with no warning printed. Under a recent Node it turns on
 * Node's compile cache (type-stripped and compiled modules kept between calls) and loads the CLI.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const MIN = [24, 11];
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);

if (major > MIN[0] || (major === MIN[0] && minor >= MIN[1])) {
  const { enableCompileCache } = await import("node:module");
  // NODE_COMPILE_CACHE when set, else the temp directory; never node_modules, whose changes make npm re-read the tree.
  enableCompileCache?.();
  await import("../src/client/cli.ts");
} else {
  // Set for the re-run: a pinned Node that is itself too old must not start another.
  const pinned = process.env.CAUSEWAY_RELAUNCHED
    ? null
    : findPinnedNode(dirname(fileURLToPath(import.meta.url)));
  if (pinned === null) {
    process.stderr.write(
      `causeway: needs Node ${MIN.join(".")} or later (this is ${process.version}); run npm install in the project to get its pinned Node\n`,
    );
    process.exit(1);
  }
  const child = spawn(pinned, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, CAUSEWAY_RELAUNCHED: "1" },
  });
  const signals = /** @type {const} */ (["SIGINT", "SIGTERM", "SIGHUP"]);
  const forward = (/** @type {NodeJS.Signals} */ signal) => child.kill(signal);
  for (const signal of signals) process.on(signal, forward);
  child.on("exit", (code, signal) => {
    for (const s of signals) process.off(s, forward);
    // Die of the same signal, so a shell sees what happened to the command.
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}

/**
 * The `node` package's binary in the nearest node_modules above `dir` (the project's, or the
 * one this package is installed in), or null.
 * @param {string} dir
 * @returns {string | null}
 */
function findPinnedNode(dir) {
  for (let d = dir; ; d = dirname(d)) {
    const candidate = join(d, "node_modules", "node", "bin", "node");
    if (existsSync(candidate)) return candidate;
    if (dirname(d) === d) return null;
  }
}
