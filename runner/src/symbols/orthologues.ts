/**
 * Mouse → human gene symbols through one-to-one orthologues. The table is operator-supplied data
 * like the network (the `mouse_human_orthologues.tsv.gz` file of the HGNC directory, columns
 * `symbol` (human) and `symbol_mouse`); genes with several orthologues are absent from it, so a
 * mouse symbol maps to at most one human symbol and nothing is guessed.
 */
import { gunzipSync } from "node:zlib";
import { HgncFormatError } from "./symbol-table.ts";

/** File name of the orthologue table inside an HGNC directory (optional there). */
export const ORTHOLOGUE_FILE = "mouse_human_orthologues.tsv.gz";

function decode(buf: Buffer): string {
  const gz = buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b;
  return (gz ? gunzipSync(buf) : buf).toString("utf8");
}

export class OrthologueTable {
  /** Lower-cased mouse symbol → human symbol (null when two mouse spellings collide case-insensitively). */
  private readonly humanByMouse = new Map<string, string | null>();
  /** Human symbol → mouse symbol. */
  private readonly mouseByHuman = new Map<string, string>();

  private constructor(text: string) {
    const lines = text.split(/\r?\n/);
    const header = (lines[0] ?? "").split("\t");
    const h = header.indexOf("symbol");
    const m = header.indexOf("symbol_mouse");
    if (h < 0 || m < 0)
      throw new HgncFormatError(`${ORTHOLOGUE_FILE}: needs the columns "symbol" and "symbol_mouse"`);
    for (let l = 1; l < lines.length; l++) {
      const cells = lines[l]!.split("\t");
      const human = cells[h]?.trim() ?? "";
      const mouse = cells[m]?.trim() ?? "";
      if (human === "" || mouse === "") continue;
      const key = mouse.toLowerCase();
      this.humanByMouse.set(key, this.humanByMouse.has(key) ? null : human);
      this.mouseByHuman.set(human, mouse);
    }
  }

  static fromBuffer(buf: Buffer): OrthologueTable {
    return new OrthologueTable(decode(buf));
  }

  get size(): number {
    return this.mouseByHuman.size;
  }

  /** The human symbol of a mouse symbol (case-insensitive), or null. */
  humanOf(mouseSymbol: string): string | null {
    return this.humanByMouse.get(mouseSymbol.trim().toLowerCase()) ?? null;
  }

  /** The mouse symbol of a human symbol, or null. */
  mouseOf(humanSymbol: string): string | null {
    return this.mouseByHuman.get(humanSymbol) ?? null;
  }
}
