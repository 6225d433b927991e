import { describe, expect, it } from "vitest";
import { StringIndex } from "./string-index.ts";

describe("StringIndex", () => {
  it.each([
    { name: "no keys", entries: [] as [string, number][] },
    { name: "one key", entries: [["STAT1", 0]] as [string, number][] },
    {
      name: "keys that are prefixes of each other, case and non-ASCII variants",
      entries: [
        ["A", 1],
        ["AB", 2],
        ["ABC", -1],
        ["abc", 4],
        ["IFN-α", 5],
        ["IFN-β", 6],
        ["😀x", 7],
      ] as [string, number][],
    },
  ])("answers exactly what a Map answers: $name", ({ entries }) => {
    const map = new Map(entries);
    const index = StringIndex.from(map);
    expect(index.size).toBe(map.size);
    for (const [key, value] of map) {
      expect(index.get(key)).toBe(value);
      expect(index.has(key)).toBe(true);
    }
    for (const absent of ["", "a", "ABCD", "IFN-", "IFN-γ", "B", "😀"]) {
      if (!map.has(absent)) expect(index.get(absent)).toBeUndefined();
    }
    expect(entries.map((_, e) => index.keyAt(e))).toEqual(entries.map(([k]) => k));
  });

  it("finds every key of a table large enough for many probe collisions", () => {
    const map = new Map<string, number>();
    for (let i = 0; i < 50_000; i++) map.set(`G${i.toString(36)}`, i % 7 === 0 ? -1 : i);
    const index = StringIndex.from(map);
    let mismatches = 0;
    for (const [key, value] of map) if (index.get(key) !== value) mismatches++;
    expect(mismatches).toBe(0);
    let found = 0;
    for (let i = 0; i < 50_000; i++) if (index.get(`H${i.toString(36)}`) !== undefined) found++;
    expect(found).toBe(0);
  });
});
