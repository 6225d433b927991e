import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";

const here = (f: string) => new URL(`./${f}`, import.meta.url);
const reexports = async (f: string) =>
  [...(await readFile(here(f), "utf8")).matchAll(/^export \* from "\.\/([a-z-]+\.ts)";$/gm)].map(
    (m) => m[1]!,
  );

describe("the contract's browser entry", () => {
  it("re-exports every module of index.ts that loads no node: module, and no other", async () => {
    const wanted: string[] = [];
    for (const f of await reexports("index.ts")) {
      const text = await readFile(here(f), "utf8");
      if (!/from "node:/.test(text)) wanted.push(f);
    }
    expect(await reexports("browser.ts")).toEqual(wanted);
  });
});
