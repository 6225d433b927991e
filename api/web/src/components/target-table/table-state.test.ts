import { describe, expect, it } from "vitest";
import { DEFAULT_STATE, offsetOfPage, pageCount, readTableState, writeTableState } from "./table-state.ts";

describe("the target table's state in the query string", () => {
  it("round-trips sort, direction, page, search and filters", () => {
    const s = {
      sort: "pvalue",
      order: "desc" as const,
      offset: 100,
      q: "IRF",
      tier: "measured",
      direction: "activated",
      fold: false,
    };
    const search = writeTableState("", s);
    expect(search).toBe("?sort=pvalue&order=desc&offset=100&q=IRF&tier=measured&direction=activated&fold=0");
    expect(readTableState(search)).toEqual(s);
  });

  it("leaves defaults out and keeps the page's other parameters", () => {
    expect(writeTableState("", DEFAULT_STATE)).toBe("");
    expect(writeTableState("?x=1&sort=pvalue", DEFAULT_STATE)).toBe("?x=1");
    expect(readTableState("")).toEqual(DEFAULT_STATE);
  });

  it("falls back to the default for values a link should not carry", () => {
    const s = readTableState("?sort=<script>&order=up&offset=-50&tier=nope&direction=x&q=" + "a".repeat(200));
    expect(s).toEqual(DEFAULT_STATE);
    expect(readTableState("?offset=73").offset).toBe(50);
    expect(readTableState("?offset=1.5").offset).toBe(0);
  });
});

describe("page numbers", () => {
  it("counts pages of 50 rows, at least one", () => {
    expect(pageCount(0)).toBe(1);
    expect(pageCount(50)).toBe(1);
    expect(pageCount(51)).toBe(2);
    expect(pageCount(9850)).toBe(197);
  });

  it("keeps a page number inside the table", () => {
    expect(offsetOfPage(1, 9850)).toBe(0);
    expect(offsetOfPage(197, 9850)).toBe(9800);
    expect(offsetOfPage(500, 9850)).toBe(9800);
    expect(offsetOfPage(0, 9850)).toBe(0);
    expect(offsetOfPage(Number.NaN, 9850)).toBe(0);
  });
});
