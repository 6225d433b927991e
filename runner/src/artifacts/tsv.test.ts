import { describe, expect, it } from "vitest";
import { formatCell, parseTsvRecords, toTsv, numberCell } from "./tsv.ts";

describe("tsv", () => {
  it.each([
    [null, "NA"],
    [Number.NaN, "NA"],
    [3, "3"],
    [0.1234567891234, "0.123456789"],
    [1.5e-12, "1.5e-12"],
    [true, "TRUE"],
    ["STAT1|PROTEIN", "STAT1|PROTEIN"],
  ])("formats %s as %s", (value, text) => {
    expect(formatCell(value)).toBe(text);
  });

  it("round-trips rows through the header", () => {
    const text = toTsv(
      ["id", "score"],
      [
        { id: "A|PROTEIN", score: 0.1760912591 },
        { id: "B|PROTEIN", score: null },
      ],
    );
    expect(text).toBe("id\tscore\nA|PROTEIN\t0.176091259\nB|PROTEIN\tNA\n");
    const rows = parseTsvRecords(text);
    expect(rows[1]).toEqual({ id: "B|PROTEIN", score: "NA" });
    expect(numberCell(rows[0]!.score)).toBeCloseTo(0.176091259, 9);
  });

  it("refuses cells that would break the table", () => {
    expect(() => formatCell("a\tb")).toThrow();
  });
});
