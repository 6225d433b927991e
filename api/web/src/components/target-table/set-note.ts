/**
 * What the 90 % prediction set says, in words, from the result's own `prediction_set_size` and
 * the number of candidates (never from the rows a page happens to hold): the set is the fewest
 * most probable candidates that held the driver in 90 % of comparable development experiments
 * (runner/docs/model-v4.md, "How sure it is"). A small set is a short list worth testing; a set
 * that holds a large share of the candidates means the data say little.
 */

/** Up to this many members the set is a short list. */
export const SHORT_SET = 20;
/** From this share of the candidates on, the data say little about the driver. */
export const VAGUE_SHARE = 0.25;

const n = (x: number) => x.toLocaleString("en");

function share(size: number, total: number): string {
  const pct = (100 * size) / total;
  return pct < 1 ? "under 1 %" : `${Math.round(pct)} %`;
}

/** The sentence on the set's size, or null when the size is not known. */
export function setSizeSentence(size: number | null, total: number): string | null {
  if (size === null || !Number.isFinite(size) || size < 0 || total <= 0) return null;
  const holds = `The 90 % prediction set holds ${n(size)} of ${n(total)} candidates`;
  if (size === 0) return `${holds}.`;
  if (size <= SHORT_SET)
    return `${holds}: a short list. In comparable experiments, such a set held the driver 9 times in 10.`;
  if (size / total >= VAGUE_SHARE)
    return `${holds} (${share(size, total)}): these data say little about which protein drove the change. Read the top ranks as leads to test, not an answer.`;
  return `${holds} (${share(size, total)}): the data narrow the field but do not single out a few candidates. Read the top ranks as leads to test.`;
}

/** The set's size as a row of the result carries it (`prediction_set_size`), else null. */
export function setSizeOf(cells: Record<string, unknown> | undefined): number | null {
  const v = cells?.prediction_set_size;
  return typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : null;
}
