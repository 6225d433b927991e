import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { findOnPath, MissingBinaryError } from "../binaries.ts";
import { repoRoot } from "../repo.ts";

/** Where build.sh caches binaries: $CAUSEWAY_CACHE_DIR or ~/.cache/causeway. */
export function cacheRoot(): string {
  return process.env.CAUSEWAY_CACHE_DIR ?? join(homedir(), ".cache", "causeway");
}

const REQUIRED = ["kube-apiserver", "kube-controller-manager", "etcd"] as const;
const BUILD_COMMAND = "bash test/harness/kube/build.sh";

function complete(dir: string): boolean {
  return REQUIRED.every((name) => existsSync(join(dir, name)));
}

/** The directory holding kube-apiserver, kube-controller-manager and etcd, or undefined. */
export function findKubeBinDir(): string | undefined {
  const explicit = process.env.CAUSEWAY_KUBE_BIN_DIR;
  if (explicit) {
    if (!complete(explicit))
      throw new Error(`CAUSEWAY_KUBE_BIN_DIR=${explicit} lacks one of ${REQUIRED.join(", ")}`);
    return explicit;
  }
  const current = join(cacheRoot(), "kube", "current");
  return complete(current) ? current : undefined;
}

/**
 * Returns the control plane's binary directory, building it first with build.sh when it is missing
 * (a cold build takes minutes; .ci/run builds it before the tests). Without Go the build cannot
 * run, and the error says what to install.
 */
export async function ensureKubeBinDir(): Promise<string> {
  const found = findKubeBinDir();
  if (found) return found;
  if (!findOnPath("go")) {
    throw new MissingBinaryError(
      "the test control plane (kube-apiserver, kube-controller-manager, etcd)",
      `Go (https://go.dev/dl or apt-get install golang-go), then ${BUILD_COMMAND}`,
    );
  }
  process.stderr.write(
    `[harness] control plane binaries missing: running ${BUILD_COMMAND} (cold build: several minutes)\n`,
  );
  await new Promise<void>((resolve, reject) => {
    const child = spawn("bash", [join(repoRoot, "test/harness/kube/build.sh")], {
      stdio: ["ignore", "inherit", "inherit"],
    });
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`${BUILD_COMMAND} failed with exit code ${String(code)}`)),
    );
  });
  const built = findKubeBinDir();
  if (!built)
    throw new Error(`${BUILD_COMMAND} finished but ${join(cacheRoot(), "kube", "current")} is incomplete`);
  return built;
}

/** Path of helm: the newest build under the cache, else helm on PATH, else undefined. */
export function findHelm(): string | undefined {
  const root = join(cacheRoot(), "helm");
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, "helm")))
      .sort((a, b) => b.localeCompare(a, undefined, { numeric: true }));
    if (versions[0]) return join(root, versions[0], "helm");
  }
  return findOnPath("helm");
}

/** The BUILD_INFO that build.sh wrote next to the binaries (version, route, build time). */
export function readBuildInfo(binDir: string): Record<string, string> {
  try {
    const lines = readFileSync(join(binDir, "BUILD_INFO"), "utf8").split("\n");
    return Object.fromEntries(
      lines
        .filter((l) => l.includes("="))
        .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
    );
  } catch {
    return {};
  }
}
