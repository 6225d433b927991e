/**
 * Evidence layers as stored beside their GMT files once a model version is imported: the sets
 * already resolved through the version's symbol table, as indices into one gene dictionary.
 * Parsing the libraries (unzip, split, resolve every name) is most of a cold v3 model load, about
 * 1.2 s for ChEA3 and KEA3, and a cluster Job or a fresh warm runner loads the model cold every
 * time; this form decodes in a fraction of that. The GMT files stay the source of truth: a
 * version without this file (imported before it existed) parses them instead.
 *
 * Layout: u32 (little endian) byte length of a JSON header, the header, zero padding to a multiple
 * of 4, then int32 words: per layer, per regulator (in header order), the number of sets, then per
 * set its length and its genes' dictionary indices. The header is
 * `{"format":1,"genes":[...],"layers":[{"name","kind","regulators":[...]}]}`.
 */
import { z } from "zod";
import { LayerKind, type EvidenceLayer } from "./gmt.ts";

/** The stored file's name under the version's prefix. */
export const RESOLVED_LAYERS_FILE = "layers/resolved.bin";

const Header = z.object({
  format: z.literal(1),
  genes: z.array(z.string()),
  layers: z.array(z.object({ name: z.string(), kind: LayerKind, regulators: z.array(z.string()) })),
});

/** The stored file does not decode (wrong layout, or indices out of range). */
export class ResolvedLayersError extends Error {
  readonly code = "invalid_resolved_layers";
}

export function encodeResolvedLayers(layers: readonly EvidenceLayer[]): Buffer {
  const index = new Map<string, number>();
  const words: number[] = [];
  const indexOf = (gene: string): number => {
    let i = index.get(gene);
    if (i === undefined) index.set(gene, (i = index.size));
    return i;
  };
  for (const layer of layers) {
    // The layer's own gene indices, renumbered into the file's one dictionary.
    const global = layer.genes.map(indexOf);
    for (const sets of layer.sets.values()) {
      words.push(sets.length);
      for (const set of sets) {
        words.push(set.length);
        for (const g of set) words.push(global[g]!);
      }
    }
  }
  const header = Buffer.from(
    JSON.stringify({
      format: 1,
      genes: [...index.keys()],
      layers: layers.map((l) => ({ name: l.name, kind: l.kind, regulators: [...l.sets.keys()] })),
    }),
  );
  const padded = Math.ceil((4 + header.length) / 4) * 4;
  const out = Buffer.alloc(padded + words.length * 4);
  out.writeUInt32LE(header.length, 0);
  header.copy(out, 4);
  Buffer.from(Int32Array.from(words).buffer).copy(out, padded);
  return out;
}

/**
 * The file's int32 words from byte `offset`: a view when they are aligned (a whole-file buffer,
 * or a runner host's shared copy, which its threads then share instead of each copying 15 MB),
 * else an aligned copy (the bytes may start anywhere in a pooled ArrayBuffer).
 */
function wordsOf(buf: Uint8Array, offset: number): Int32Array {
  const start = buf.byteOffset + offset;
  const count = (buf.byteLength - offset) / 4;
  if (start % 4 === 0) return new Int32Array(buf.buffer, start, count);
  const words = new Int32Array(count);
  new Uint8Array(words.buffer).set(buf.subarray(offset));
  return words;
}

export function decodeResolvedLayers(buf: Uint8Array): EvidenceLayer[] {
  const bytes = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (bytes.length < 4) throw new ResolvedLayersError("resolved layers: truncated header");
  const headerLength = bytes.readUInt32LE(0);
  const padded = Math.ceil((4 + headerLength) / 4) * 4;
  if (padded > bytes.length || (bytes.length - padded) % 4 !== 0)
    throw new ResolvedLayersError("resolved layers: truncated");
  const header = Header.parse(JSON.parse(bytes.subarray(4, 4 + headerLength).toString("utf8")));
  const words = wordsOf(buf, padded);
  const { genes } = header;
  let at = 0;
  const next = (): number => {
    if (at >= words.length) throw new ResolvedLayersError("resolved layers: data ends early");
    return words[at++]!;
  };
  const layers = header.layers.map(({ name, kind, regulators }) => {
    const sets = new Map<string, Int32Array[]>();
    for (const regulator of regulators) {
      const count = next();
      const list: Int32Array[] = [];
      for (let s = 0; s < count; s++) {
        const length = next();
        if (length < 0 || at + length > words.length)
          throw new ResolvedLayersError("resolved layers: data ends early");
        // A view: every layer's sets stay in the one aligned copy of the file's words.
        const set = words.subarray(at, at + length);
        at += length;
        for (const g of set)
          if (g < 0 || g >= genes.length)
            throw new ResolvedLayersError("resolved layers: gene index out of range");
        list.push(set);
      }
      sets.set(regulator, list);
    }
    return { name, kind, genes, sets };
  });
  if (at !== words.length) throw new ResolvedLayersError("resolved layers: trailing data");
  return layers;
}
