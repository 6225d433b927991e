import { describe, expect, it } from "vitest";
import { resultSetPrefixes } from "./artifacts.ts";

describe("resultSetPrefixes", () => {
  it("gives a single result set no prefix", () => {
    expect(resultSetPrefixes(["IFNB"])).toEqual(new Map([["IFNB", ""]]));
  });

  it("names a result set by its level made file-safe when that is unique and short", () => {
    const p = resultSetPrefixes(["IFNB", "TNF alpha"]);
    expect(p.get("IFNB")).toBe("IFNB.");
    expect(p.get("TNF alpha")).toBe("TNF_alpha.");
  });

  it("keeps levels apart that become the same file-safe name", () => {
    const p = resultSetPrefixes(["IFN-α", "IFN-β", "IFN-γ"]);
    const names = [...p.values()];
    expect(new Set(names).size).toBe(3);
    for (const n of names) expect(n).toMatch(/^IFN-__[0-9a-f]{8}\.$/);
  });

  it("shortens a level longer than an object name allows, the same way on every run", () => {
    const long = `interferon_beta_${"y".repeat(250)}`;
    const p = resultSetPrefixes(["ctrl_vs_a", long]);
    expect(p.get(long)!.length).toBeLessThanOrEqual(65);
    expect(p.get(long)).toMatch(/^interferon_beta_y+_[0-9a-f]{8}\.$/);
    expect(resultSetPrefixes(["ctrl_vs_a", long]).get(long)).toBe(p.get(long));
    expect(p.get("ctrl_vs_a")).toBe("ctrl_vs_a.");
  });
});
