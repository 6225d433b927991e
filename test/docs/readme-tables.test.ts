/**
 * Each component README names what its folder holds: every entry of the folder (and of its
 * `src/`, when it has one) appears in the README in backticks, by its name, its path from the
 * folder, or a glob such as `*.test.ts`. Tests beside their code, generated output and tooling
 * folders are not listed. A file added without a line in its folder's README fails here.
 */
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The component folders whose README carries a table of their files. */
const FOLDERS = [
  "api",
  "api/web",
  "crds",
  "runner",
  "runner/validation",
  "runner/src/anndata",
  "runner/src/model",
];

const IGNORED = new Set(["node_modules", "dist", "README.md", "package.json", "tsconfig.json", ".gitignore"]);

/** A backticked name in the README, as a pattern over paths relative to the folder. */
function patternOf(token: string): RegExp {
  const escaped = token
    .replace(/\/$/, "")
    .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, "[^/]*");
  return new RegExp(`^${escaped}$`);
}

async function entriesOf(folder: string): Promise<string[]> {
  const dir = join(ROOT, folder);
  const names = (await readdir(dir, { withFileTypes: true })).filter(
    (e) => !e.name.startsWith(".") && !IGNORED.has(e.name) && !e.name.endsWith(".test.ts"),
  );
  const out = names.map((e) => e.name);
  if (names.some((e) => e.name === "src" && e.isDirectory())) {
    out.splice(out.indexOf("src"), 1);
    for (const e of await readdir(join(dir, "src"), { withFileTypes: true }))
      if (!e.name.startsWith(".") && !e.name.endsWith(".test.ts")) out.push(`src/${e.name}`);
  }
  return out;
}

function listed(entry: string, tokens: readonly string[]): boolean {
  const base = entry.slice(entry.lastIndexOf("/") + 1);
  return tokens.some((t) => {
    const p = patternOf(t);
    return p.test(entry) || p.test(base) || t.startsWith(`${entry}/`) || t.startsWith(`${base}/`);
  });
}

describe("folder READMEs list every file of their folder", () => {
  it.each(FOLDERS)("%s/README.md", async (folder) => {
    const text = await readFile(join(ROOT, folder, "README.md"), "utf8");
    // Backticked tokens, split where a cell names several (`a.ts`, `b.ts` or `a.ts, b.ts`).
    const tokens = [...text.matchAll(/`([^`\n]+)`/g)].flatMap((m) =>
      m[1]!.split(/,\s*/).map((t) => t.trim().replace(/^\.\//, "")),
    );
    const missing = (await entriesOf(folder)).filter((e) => !listed(e, tokens));
    expect(missing, `not named in ${relative(ROOT, join(ROOT, folder, "README.md"))}`).toEqual([]);
  });
});
