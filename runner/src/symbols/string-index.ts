/**
 * A read-only map from strings to integers, for the symbol tables a warm runner and the API
 * hold for their whole life (~190k HGNC keys). A `Map<string, number>` of them takes ~20 MB of
 * heap (an entry, a hash bucket and a string object per key), and its keys, cut by
 * `String.split` from the decompressed files, keep those whole texts alive as well. Here the
 * keys are one concatenated string with an end offset each, found through an open-addressing
 * hash table of typed arrays: ~3 MB, nothing retained. Hand-written because no maintained
 * package offers a compact read-only string map; the parts are a textbook FNV-1a hash and
 * linear probing.
 */
export class StringIndex {
  /** All keys, concatenated in insertion order. */
  private readonly keys: string;
  /** End offset in `keys` of entry i (its start is the previous entry's end). */
  private readonly ends: Uint32Array;
  private readonly values: Int32Array;
  /** Hash slots: entry index + 1, 0 when empty; its length is a power of two. */
  private readonly slots: Int32Array;

  private constructor(keys: string, ends: Uint32Array, values: Int32Array, slots: Int32Array) {
    this.keys = keys;
    this.ends = ends;
    this.values = values;
    this.slots = slots;
  }

  static from(map: ReadonlyMap<string, number>): StringIndex {
    const n = map.size;
    const ends = new Uint32Array(n);
    const values = new Int32Array(n);
    let end = 0;
    let i = 0;
    for (const [key, value] of map) {
      end += key.length;
      ends[i] = end;
      values[i++] = value;
    }
    // `join` makes one flat string, which references none of the strings it was made from.
    const keys = [...map.keys()].join("");
    // At most half full, so a probe ends after a few slots.
    let size = 16;
    while (size < n * 2) size *= 2;
    const slots = new Int32Array(size);
    const index = new StringIndex(keys, ends, values, slots);
    for (let e = 0; e < n; e++) {
      let s = index.hashOfEntry(e) & (size - 1);
      while (slots[s] !== 0) s = (s + 1) & (size - 1);
      slots[s] = e + 1;
    }
    return index;
  }

  get size(): number {
    return this.ends.length;
  }

  get(key: string): number | undefined {
    const mask = this.slots.length - 1;
    for (let s = hash(key, 0, key.length) & mask; ; s = (s + 1) & mask) {
      const slot = this.slots[s]!;
      if (slot === 0) return undefined;
      if (this.entryEquals(slot - 1, key)) return this.values[slot - 1];
    }
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** The key of entry `e` (a new string each call). */
  keyAt(e: number): string {
    return this.keys.slice(this.start(e), this.ends[e]);
  }

  private start(e: number): number {
    return e === 0 ? 0 : this.ends[e - 1]!;
  }

  private hashOfEntry(e: number): number {
    return hash(this.keys, this.start(e), this.ends[e]!);
  }

  private entryEquals(e: number, key: string): boolean {
    const start = this.start(e);
    if (this.ends[e]! - start !== key.length) return false;
    for (let i = 0; i < key.length; i++)
      if (this.keys.charCodeAt(start + i) !== key.charCodeAt(i)) return false;
    return true;
  }
}

/** FNV-1a over UTF-16 code units of `text[from, to)`. */
function hash(text: string, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
