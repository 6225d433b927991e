/**
 * Vertical placement of one layer's items (nodes and edges passing through) in a fixed height:
 * keep the order the layout library chose, stay as close as possible to its positions, never
 * let two items come closer than their half-extents allow.
 */

export interface Slot {
  /** Preferred centre. */
  desired: number;
  /** Half of the vertical room the item needs. */
  extent: number;
  /** How strongly the item holds on to its preferred centre. */
  weight: number;
}

/**
 * Least-squares centres for ordered slots in `[0, height]` with `y[i+1] − y[i] ≥ extent[i] +
 * extent[i+1]`. Shifting by the cumulative minimal separations turns this into bounded isotonic
 * regression, solved exactly by pool-adjacent-violators followed by clamping. The caller makes
 * sure the extents fit (`2·Σ extent ≤ height`).
 */
export function placeSlots(slots: readonly Slot[], height: number): number[] {
  const n = slots.length;
  if (n === 0) return [];
  const offset = new Array<number>(n).fill(0);
  for (let i = 1; i < n; i++) offset[i] = offset[i - 1]! + slots[i - 1]!.extent + slots[i]!.extent;

  // Pool-adjacent-violators over z_i = y_i − offset_i, which must be non-decreasing.
  const blockValue: number[] = [];
  const blockWeight: number[] = [];
  const blockSize: number[] = [];
  for (let i = 0; i < n; i++) {
    let value = slots[i]!.desired - offset[i]!;
    let weight = slots[i]!.weight;
    let size = 1;
    while (blockValue.length > 0 && blockValue[blockValue.length - 1]! > value) {
      const w = blockWeight.pop()!;
      value = (value * weight + blockValue.pop()! * w) / (weight + w);
      weight += w;
      size += blockSize.pop()!;
    }
    blockValue.push(value);
    blockWeight.push(weight);
    blockSize.push(size);
  }

  const lo = slots[0]!.extent;
  const hi = height - slots[n - 1]!.extent - offset[n - 1]!;
  const y: number[] = [];
  blockValue.forEach((value, b) => {
    const z = Math.min(Math.max(value, lo), Math.max(lo, hi));
    for (let k = 0; k < blockSize[b]!; k++) y.push(z + offset[y.length]!);
  });
  return y;
}
