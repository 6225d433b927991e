/**
 * Keys of a list that stands in for a picture's clicks (the causal graph's nodes, the volcano's
 * genes): a roving-tabindex listbox, one tab stop, the arrows move, Enter or Space chooses.
 * Pure, so that the keys are tested without a browser.
 */

/** The item a key moves to from `index` in a list of `length`; null for a key that does not move. */
export function moveTo(key: string, index: number, length: number): number | null {
  if (length === 0) return null;
  const last = length - 1;
  switch (key) {
    case "ArrowDown":
    case "ArrowRight":
      return Math.min(last, index + 1);
    case "ArrowUp":
    case "ArrowLeft":
      return Math.max(0, index - 1);
    case "Home":
      return 0;
    case "End":
      return last;
    case "PageDown":
      return Math.min(last, index + 10);
    case "PageUp":
      return Math.max(0, index - 10);
    default:
      return null;
  }
}

/**
 * Type-ahead: the next item after `index` whose label starts with `typed` (case-insensitive),
 * wrapping round; null when none does.
 */
export function typeAhead(labels: readonly string[], index: number, typed: string): number | null {
  const t = typed.toLowerCase();
  if (t === "") return null;
  for (let k = 1; k <= labels.length; k++) {
    const i = (index + k) % labels.length;
    if (labels[i]!.toLowerCase().startsWith(t)) return i;
  }
  return null;
}
