import { describe, expect, it } from "vitest";
import { placeSlots } from "./placement.ts";

const slot = (desired: number, extent = 20, weight = 1) => ({ desired, extent, weight });

describe("placeSlots", () => {
  it("keeps preferred centres that already respect order, separation and bounds", () => {
    expect(placeSlots([slot(20), slot(100), slot(140)], 200)).toEqual([20, 100, 140]);
  });

  it("pushes crowded items apart symmetrically, preserving their order", () => {
    const y = placeSlots([slot(100), slot(100), slot(100)], 400);
    expect(y).toEqual([60, 100, 140]);
  });

  it("keeps items inside [0, height] and packs a full layer exactly", () => {
    expect(placeSlots([slot(-50), slot(0), slot(10)], 120)).toEqual([20, 60, 100]);
    expect(placeSlots([slot(500), slot(500)], 80)).toEqual([20, 60]);
  });

  it("lets light items (edges passing through) give way to nodes", () => {
    const [node, edge] = placeSlots([slot(50, 20, 1), slot(50, 3, 0.25)], 200);
    expect(edge! - node!).toBeCloseTo(23, 12);
    expect(node).toBeCloseTo(50 - 23 * 0.2, 12);
  });
});
