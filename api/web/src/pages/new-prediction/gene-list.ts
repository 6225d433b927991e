import { GeneListFormatError, parseGeneList as readGeneList } from "@causeway/contract";

/**
 * Gene identifiers from pasted text or a file, read as the command line reads a `--degs` file
 * (the contract's reader: a JSON array or signed list, or plain text, R's quoting and a header
 * word included); JSON that is no gene list gives none, and the form says the list is empty.
 */
export function parseGeneList(text: string): string[] {
  try {
    return readGeneList(text).genes;
  } catch (err) {
    if (err instanceof GeneListFormatError) return [];
    throw err;
  }
}

/** A target as the API wants it: SYMBOL|PROTEIN (a bare symbol is taken as its protein). */
export const targetId = (t: string): string => {
  const s = t.trim();
  return s === "" || s.includes("|") ? s : `${s.toUpperCase()}|PROTEIN`;
};
