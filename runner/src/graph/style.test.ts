import { describe, expect, it } from "vitest";
import { colourLimit, COLOURS, edgeColour, edgeWidth, foldRgb, labelColourOn, nodeFill } from "./style.ts";
import { formatFold } from "./legend.ts";

describe("colour scale", () => {
  it("uses symmetric limits ±min(3, max |log2FC| shown), ignoring unmeasured genes", () => {
    expect(colourLimit([0.5, -2.4, null, 1])).toBe(2.4);
    expect(colourLimit([6.3, -1, null])).toBe(3);
    expect(colourLimit([-7])).toBe(3);
    expect(colourLimit([null, 0])).toBe(1);
  });

  it("is white at 0, blue below, red above, and clamps beyond the limits", () => {
    expect(foldRgb(0, 2)).toEqual([255, 255, 255]);
    expect(foldRgb(-2, 2)).toEqual([5, 48, 97]);
    expect(foldRgb(2, 2)).toEqual([103, 0, 31]);
    expect(foldRgb(9, 2)).toEqual(foldRgb(2, 2));
    const [r, , b] = foldRgb(-1, 2);
    expect(b).toBeGreaterThan(r);
    expect(nodeFill(1, 3)).toMatch(/^#[0-9a-f]{6}$/);
  });

  it("fills unmeasured genes light grey", () => {
    expect(nodeFill(null, 3)).toBe(COLOURS.unmeasured);
    expect(COLOURS.unmeasured).toBe("#cccccc");
  });

  it("puts white labels on the dark ends only", () => {
    expect(labelColourOn(nodeFill(3, 3))).toBe("#ffffff");
    expect(labelColourOn(nodeFill(-3, 3))).toBe("#ffffff");
    expect(labelColourOn(nodeFill(0.2, 3))).toBe(COLOURS.text);
    expect(labelColourOn(COLOURS.unmeasured)).toBe(COLOURS.text);
  });

  it("labels the colour bar with true minus signs", () => {
    expect([formatFold(-2.4137), formatFold(0), formatFold(3)]).toEqual(["−2.4", "0", "+3"]);
  });
});

describe("edges", () => {
  it("colours by sign", () => {
    expect([edgeColour(1), edgeColour(-1), edgeColour(0)]).toEqual([
      COLOURS.activation,
      COLOURS.inhibition,
      COLOURS.unknown,
    ]);
  });

  it("maps log10 of the summed score linearly onto 1–5 px", () => {
    expect(edgeWidth(1e-4, 1e-4, 1e-2)).toBe(1);
    expect(edgeWidth(1e-2, 1e-4, 1e-2)).toBe(5);
    expect(edgeWidth(1e-3, 1e-4, 1e-2)).toBeCloseTo(3, 12);
    expect(edgeWidth(0.5, 0.5, 0.5)).toBe(3);
  });
});
