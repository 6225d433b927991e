import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { HGNC_DIR, sharedData } from "../../../test/shared-data.ts";
import { SymbolTable } from "../symbols/index.ts";
import { layerFilesOfDir } from "./layer-dir.ts";
import { parseGmt, setsAsSymbols, type EvidenceLayer } from "./gmt.ts";
import { decodeResolvedLayers, encodeResolvedLayers, ResolvedLayersError } from "./resolved-layers.ts";

describe("resolved evidence layers", () => {
  let parsed: EvidenceLayer[];
  beforeAll(async () => {
    const symbols = await SymbolTable.load(HGNC_DIR);
    const dir = sharedData("libraries");
    const files = await layerFilesOfDir(dir);
    parsed = await Promise.all(
      files.map(async (f) => parseGmt(await readFile(f.path), f.name, f.kind, symbols)),
    );
  });

  it("decodes to exactly the sets parsing gives, on the shared ChEA3 and KEA3 libraries", () => {
    expect(parsed.length).toBeGreaterThan(10);
    const decoded = decodeResolvedLayers(encodeResolvedLayers(parsed));
    expect(decoded.map((l) => [l.name, l.kind])).toEqual(parsed.map((l) => [l.name, l.kind]));
    for (const [i, layer] of decoded.entries())
      expect(setsAsSymbols(layer)).toEqual(setsAsSymbols(parsed[i]!));
  });

  it("decodes from any byte offset (a file read into a pooled buffer)", () => {
    const bytes = encodeResolvedLayers(parsed.slice(0, 2));
    const shifted = Buffer.concat([Buffer.from([1, 2, 3]), bytes]).subarray(3);
    expect(setsAsSymbols(decodeResolvedLayers(shifted)[1]!)).toEqual(setsAsSymbols(parsed[1]!));
  });

  it("reads the words of an aligned shared copy in place, so a host's threads share them", () => {
    const bytes = encodeResolvedLayers(parsed.slice(0, 2));
    const shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
    shared.set(bytes);
    const decoded = decodeResolvedLayers(shared);
    const sets = [...decoded[1]!.sets.values()].flat();
    expect(sets.length).toBeGreaterThan(0);
    for (const set of sets) expect(set.buffer).toBe(shared.buffer);
    expect(setsAsSymbols(decoded[1]!)).toEqual(setsAsSymbols(parsed[1]!));
  });

  it("refuses a truncated or corrupted file", () => {
    const bytes = encodeResolvedLayers(parsed.slice(0, 1));
    expect(() => decodeResolvedLayers(bytes.subarray(0, bytes.length - 4))).toThrow(ResolvedLayersError);
    const corrupt = Buffer.from(bytes);
    corrupt.writeInt32LE(2 ** 30, corrupt.length - 4);
    expect(() => decodeResolvedLayers(corrupt)).toThrow(ResolvedLayersError);
  });
});
