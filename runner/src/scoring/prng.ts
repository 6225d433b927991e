/**
 * The documented random generator of model.md §8.2: xoshiro128** (Blackman & Vigna 2018),
 * its 128-bit state filled by SplitMix64 from a 64-bit seed, the seed being the first 8 bytes
 * of SHA-256(prediction_id + "/" + prefix). Hand-written: it is 20 lines, and the npm ports
 * either seed differently or allocate per draw; the test pins the reference output.
 */
import { createHash } from "node:crypto";

const MASK64 = (1n << 64n) - 1n;

/** SplitMix64 step: the standard way to expand one 64-bit seed into generator state. */
function splitMix64(state: bigint): [bigint, bigint] {
  const next = (state + 0x9e3779b97f4a7c15n) & MASK64;
  let z = next;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return [next, z ^ (z >> 31n)];
}

/** xoshiro128**: 32-bit outputs, period 2^128 − 1. */
export class Xoshiro128ss {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  /** Seeds from a 64-bit integer through SplitMix64 (low then high 32 bits of two outputs). */
  constructor(seed: bigint) {
    const [st, a] = splitMix64(seed & MASK64);
    const [, b] = splitMix64(st);
    this.s0 = Number(a & 0xffffffffn) | 0;
    this.s1 = Number(a >> 32n) | 0;
    this.s2 = Number(b & 0xffffffffn) | 0;
    this.s3 = Number(b >> 32n) | 0;
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** Next output as an unsigned 32-bit integer. */
  nextUint32(): number {
    const x = Math.imul(this.s1, 5);
    const result = Math.imul((x << 7) | (x >>> 25), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = (this.s3 << 11) | (this.s3 >>> 21);
    return result;
  }

  /** Uniform integer in [0, bound) without modulo bias (rejection of the incomplete last range). */
  nextBelow(bound: number): number {
    if (bound <= 0 || bound > 0x100000000) throw new RangeError("bound must be in 1..2^32");
    const limit = 0x100000000 - (0x100000000 % bound);
    for (;;) {
      const u = this.nextUint32();
      if (u < limit) return u % bound;
    }
  }
}

/** The job seed of §8.2: first 8 bytes of SHA-256(seedSource), big-endian, and their hex. */
export function seedFrom(seedSource: string): { seed: bigint; seedHex: string } {
  const digest = createHash("sha256").update(seedSource, "utf8").digest();
  const seedHex = digest.subarray(0, 8).toString("hex");
  return { seed: BigInt(`0x${seedHex}`), seedHex };
}
