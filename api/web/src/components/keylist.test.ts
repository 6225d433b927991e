import { describe, expect, it } from "vitest";
import { moveTo, typeAhead } from "./keylist.ts";

describe("the keys of the lists that stand in for clicking the graph and the volcano", () => {
  it("moves with the arrows, Home, End and the page keys, and stops at the ends", () => {
    expect(moveTo("ArrowDown", 0, 5)).toBe(1);
    expect(moveTo("ArrowRight", 4, 5)).toBe(4);
    expect(moveTo("ArrowUp", 0, 5)).toBe(0);
    expect(moveTo("ArrowLeft", 3, 5)).toBe(2);
    expect(moveTo("Home", 3, 5)).toBe(0);
    expect(moveTo("End", 1, 5)).toBe(4);
    expect(moveTo("PageDown", 1, 30)).toBe(11);
    expect(moveTo("PageUp", 4, 30)).toBe(0);
  });

  it("leaves other keys (Enter, Tab, letters) and an empty list alone", () => {
    expect(moveTo("Enter", 1, 5)).toBeNull();
    expect(moveTo("Tab", 1, 5)).toBeNull();
    expect(moveTo("a", 1, 5)).toBeNull();
    expect(moveTo("ArrowDown", 0, 0)).toBeNull();
  });

  it("finds the next label a typed prefix starts, wrapping round", () => {
    const labels = ["STAT1", "IRF1", "GBP1", "IRF9", "ISG15"];
    expect(typeAhead(labels, 0, "i")).toBe(1);
    expect(typeAhead(labels, 1, "i")).toBe(3);
    expect(typeAhead(labels, 4, "s")).toBe(0);
    expect(typeAhead(labels, 0, "irf9")).toBe(3);
    expect(typeAhead(labels, 0, "x")).toBeNull();
    expect(typeAhead(labels, 0, "")).toBeNull();
  });
});
