import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

/** Root of the repository (this file is test/harness/repo.ts). */
export const repoRoot: string = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");

/**
 * The Node 24 that the project runs on: the pinned `node` devDependency (node_modules/.bin/node), not
 * the machine's older system node. Falls back to the node running this code.
 */
export function projectNode(): string {
  const pinned = join(repoRoot, "node_modules", ".bin", "node");
  return existsSync(pinned) ? pinned : process.execPath;
}
