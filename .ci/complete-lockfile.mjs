// Completes package-lock.json with the platform packages of native modules (napi-rs style:
// `<name>-<os>-<cpu>[-<abi>]`, e.g. @napi-rs/canvas-darwin-arm64) that this machine's npm registry
// does not serve. `npm install` then leaves them out of the lock, and `npm ci` refuses the lock as
// "out of sync" ("Missing: @napi-rs/canvas-darwin-arm64@ from lock file"). The added entries carry
// os/cpu/libc, so npm skips them on this platform exactly as with a normally generated lock.
//
// Usage: node .ci/complete-lockfile.mjs          # fix package-lock.json in place
//        node .ci/complete-lockfile.mjs --check  # exit 1 and list what is missing (used by .ci/run)
// Runs on any Node >= 18 (plain JS: it runs before npm ci installs the project's Node 24).
import console from "node:console";
import { readFileSync, writeFileSync } from "node:fs";
import process from "node:process";

const OS = { android: "android", darwin: "darwin", linux: "linux", win32: "win32", freebsd: "freebsd" };
const CPU = {
  arm64: "arm64",
  x64: "x64",
  arm: "arm",
  ia32: "ia32",
  riscv64: "riscv64",
  ppc64: "ppc64",
  s390x: "s390x",
};

/** Infers os/cpu/libc from a napi-rs platform package name, or returns undefined. */
function platformOf(name) {
  const match =
    /-(android|darwin|linux|win32|freebsd)-(arm64|x64|arm|ia32|riscv64|ppc64|s390x)(?:-(gnu|musl|gnueabihf|msvc|eabi))?$/.exec(
      name,
    );
  if (!match) return undefined;
  const [, os, cpu, abi] = match;
  const libc = os === "linux" ? (abi === "musl" ? ["musl"] : ["glibc"]) : undefined;
  return { os: [OS[os]], cpu: [CPU[cpu]], ...(libc ? { libc } : {}) };
}

const check = process.argv.includes("--check");
const lock = JSON.parse(readFileSync("package-lock.json", "utf8"));
const missing = [];
const unknown = [];
for (const [path, entry] of Object.entries(lock.packages ?? {})) {
  for (const [dep, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = path === "" ? "node_modules" : `${path}/node_modules`;
    // Resolution as npm does it: nested first, then hoisted to the root.
    if (lock.packages[`${base}/${dep}`] || lock.packages[`node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform || !/^\d+\.\d+\.\d+/.test(range)) {
      unknown.push(`${dep}@${range} (optional dependency of ${path || "the root"})`);
      continue;
    }
    missing.push(dep);
    lock.packages[`node_modules/${dep}`] = { version: range, optional: true, ...platform };
  }
}
if (check) {
  if (missing.length > 0) {
    console.error(
      `package-lock.json lacks ${missing.length} platform package(s) of native modules, so npm ci will refuse it:\n  ${missing.join("\n  ")}\nFix once and commit: node .ci/complete-lockfile.mjs`,
    );
    process.exit(1);
  }
  process.exit(0);
}
if (missing.length > 0) {
  const root = lock.packages[""];
  const rest = Object.entries(lock.packages)
    .filter(([key]) => key !== "")
    .sort(([a], [b]) => a.localeCompare(b, "en"));
  lock.packages = Object.fromEntries([["", root], ...rest]);
  writeFileSync("package-lock.json", `${JSON.stringify(lock, null, 2)}\n`);
}
console.log(
  `added ${missing.length} platform package(s) to package-lock.json${missing.length ? `: ${missing.join(", ")}` : ""}`,
);
if (unknown.length > 0) console.warn(`not inferable, left alone:\n  ${unknown.join("\n  ")}`);
