import { describe, expect, it } from "vitest";
import { decodeNpyFloat32, encodeNpyFloat32 } from "./npy.ts";

describe("npy float32", () => {
  it("writes a header NumPy accepts: magic, version 1.0, 64-byte aligned, shape", () => {
    const buf = encodeNpyFloat32({ rows: 2, cols: 3, data: new Float32Array([1, 2, 3, 4, 5, NaN]) });
    expect(buf.subarray(0, 8)).toEqual(Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]));
    const headerLen = buf.readUInt16LE(8);
    expect((10 + headerLen) % 64).toBe(0);
    expect(buf.subarray(10, 10 + headerLen).toString("latin1")).toContain("'shape': (2, 3)");
    expect(buf.length).toBe(10 + headerLen + 24);
  });

  it("round-trips values including NaN", () => {
    const data = new Float32Array([0.5, -1.25, NaN, 3e-7]);
    const back = decodeNpyFloat32(encodeNpyFloat32({ rows: 1, cols: 4, data }));
    expect(back.rows).toBe(1);
    expect(back.cols).toBe(4);
    expect(Array.from(back.data.slice(0, 2))).toEqual([0.5, -1.25]);
    expect(Number.isNaN(back.data[2])).toBe(true);
  });

  it("rejects other dtypes", () => {
    const buf = encodeNpyFloat32({ rows: 1, cols: 1, data: new Float32Array([1]) });
    const tampered = Buffer.from(buf.toString("latin1").replace("<f4", "<f8"), "latin1");
    expect(() => decodeNpyFloat32(tampered)).toThrow(/float32/);
  });
});
