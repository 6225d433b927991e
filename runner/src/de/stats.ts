/** Small order statistics with R's conventions (median of an even count averages the middle two). */

/** Median of the values (NaN for none); does not modify the input. */
export function median(values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0) return Number.NaN;
  const s = Float64Array.from(values).sort();
  const h = n >> 1;
  return n % 2 === 1 ? s[h]! : (s[h - 1]! + s[h]!) / 2;
}

/** R's `mad(x)`: 1.4826 · median(|x − median(x)|). */
export function mad(values: ArrayLike<number>): number {
  const med = median(values);
  const dev = Float64Array.from(values, (v) => Math.abs(v - med));
  return 1.4826 * median(dev);
}

/** R's `mean(x, trim)`: drops floor(n · trim) values from each end. */
export function trimmedMean(values: ArrayLike<number>, trim: number): number {
  const n = values.length;
  const s = Float64Array.from(values).sort();
  const lo = Math.floor(n * trim);
  if (trim >= 0.5) return median(s);
  let sum = 0;
  for (let i = lo; i < n - lo; i++) sum += s[i]!;
  return sum / (n - 2 * lo);
}
