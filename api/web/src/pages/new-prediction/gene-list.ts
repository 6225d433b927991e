/** Gene identifiers from pasted text or a file: a JSON array, or words separated by commas, tabs or lines. */
export function parseGeneList(text: string): string[] {
  const t = text.trim();
  if (t.startsWith("[")) {
    try {
      const v: unknown = JSON.parse(t);
      if (Array.isArray(v))
        return v.filter((g): g is string => typeof g === "string" && g.trim() !== "").map((g) => g.trim());
    } catch {
      // not JSON: read as a plain list
    }
  }
  return t
    .split(/[\s,;]+/)
    .map((g) => g.replace(/^["']|["']$/g, ""))
    .filter((g) => g !== "");
}

/** A target as the API wants it: SYMBOL|PROTEIN (a bare symbol is taken as its protein). */
export const targetId = (t: string): string => {
  const s = t.trim();
  return s === "" || s.includes("|") ? s : `${s.toUpperCase()}|PROTEIN`;
};
