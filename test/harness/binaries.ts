import { accessSync, constants, readdirSync } from "node:fs";
import { delimiter, join } from "node:path";

/** Thrown when a program the harness needs is not installed; the message says how to install it. */
export class MissingBinaryError extends Error {
  constructor(program: string, installHint: string) {
    super(
      `${program} was not found on this machine. Install it with: ${installHint} (npm run test:all installs everything it needs).`,
    );
    this.name = "MissingBinaryError";
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Finds `program` in PATH, then in `extraDirs`; returns its path or undefined. */
export function findOnPath(program: string, extraDirs: readonly string[] = []): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), ...extraDirs].filter((d) => d !== "");
  for (const dir of dirs) {
    const candidate = join(dir, program);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** Like {@link findOnPath}, but throws a {@link MissingBinaryError} carrying `installHint`. */
export function requireBinary(
  program: string,
  installHint: string,
  extraDirs: readonly string[] = [],
): string {
  const found = findOnPath(program, extraDirs);
  if (found === undefined) throw new MissingBinaryError(program, installHint);
  return found;
}

/** Subdirectories `<root>/<version>/<sub>` sorted by version, newest first (e.g. /usr/lib/postgresql/15/bin). */
export function versionedDirs(root: string, sub: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return [];
  }
  return entries
    .filter((e) => /^\d+(\.\d+)*$/.test(e))
    .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a))
    .map((e) => join(root, e, sub));
}
