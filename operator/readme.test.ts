/**
 * README.md's Layout block is the newcomer's map of operator/: it must name every file of the
 * folder, and nothing that is not there. In the block, a line's first column (or the two-space
 * indented one) holds a path, or file names separated by ", "; a path ending in "/" opens a
 * folder whose indented lines are its files. Deeper-indented lines continue a description.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = import.meta.dirname;
const SKIP = new Set(["node_modules"]);

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name)) return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? filesUnder(path) : [relative(ROOT, path)];
  });
}

/** The paths the Layout block names. */
function layoutPaths(readme: string): string[] {
  const section = readme.split("## Layout")[1] ?? "";
  const block = section.split("```")[1] ?? "";
  const paths: string[] = [];
  let folder = "";
  for (const line of block.split("\n")) {
    const indent = line.length - line.trimStart().length;
    if (line.trim() === "" || indent > 2) continue;
    const names = (line.trim().split(/\s{2,}/)[0] ?? "").split(", ");
    if (indent === 0) folder = "";
    for (const name of names) {
      if (name.endsWith("/")) folder = name;
      else if (/^[\w.-]+(\/[\w.-]+)*$/.test(name) && /\.|^Dockerfile$/.test(name)) paths.push(folder + name);
    }
  }
  return paths;
}

describe("operator/README.md", () => {
  it("lists every file of operator/ and only those", () => {
    const listed = layoutPaths(readFileSync(join(ROOT, "README.md"), "utf8"));
    expect(new Set(listed).size, "a file listed twice").toBe(listed.length);
    expect(listed.toSorted()).toEqual(filesUnder(ROOT).toSorted());
  });

  it("reads folders, indented files and comma-separated names", () => {
    const readme = [
      "## Layout",
      "```",
      "a.ts                x",
      "src/b.ts            y",
      "                    a continuation naming c.ts",
      "src/sub/            z",
      "  c.ts, d.ts        w",
      "e.md                v",
      "```",
    ].join("\n");
    expect(layoutPaths(readme)).toEqual(["a.ts", "src/b.ts", "src/sub/c.ts", "src/sub/d.ts", "e.md"]);
  });
});
