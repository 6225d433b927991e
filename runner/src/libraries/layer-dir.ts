/**
 * A directory of evidence layers: every gene-set library (`*.gmt`, `*.gmt.gz`) below it, its kind
 * read from its name (`*chipseq*` → tf_binding, `*coexpression*` → tf_coexpression) or its folder
 * (`kea3`, or a name starting with `kinase` → kinase), which is the layout of ChEA3's and KEA3's
 * public libraries (runner/docs/model-v3.md); and every interaction pair file (`*.tsv`, `*.txt`,
 * optionally gzipped) in a folder whose name starts with `ppi` (kind ppi: pairs.ts). In path
 * order; a library that fits no kind is an error rather than a guess.
 */
import { readdir, readFile } from "node:fs/promises";
import { basename, join, relative, sep } from "node:path";
import type { SymbolTable } from "../symbols/index.ts";
import { GmtFormatError, type EvidenceLayer, type LayerKind } from "./gmt.ts";
import { parseLayer } from "./parse-layer.ts";

/** One library file found in a directory. */
export interface LayerFile {
  path: string;
  name: string;
  kind: LayerKind;
}

const GMT_RE = /\.gmt(\.gz)?$/;
const PAIRS_RE = /\.(tsv|txt)(\.gz)?$/;

/** The kind of a layer file from its path relative to the directory; null when none fits. */
export function layerKindOf(relPath: string): LayerKind | null {
  const lower = relPath.toLowerCase();
  const file = basename(lower);
  const folders = lower.split(sep).slice(0, -1);
  if (PAIRS_RE.test(file)) return folders.some((f) => f.startsWith("ppi")) ? "ppi" : null;
  if (file.includes("chipseq") || file.includes("chip-seq")) return "tf_binding";
  if (file.includes("coexpression")) return "tf_coexpression";
  if (folders.some((f) => f === "kea3" || f.startsWith("kinase"))) return "kinase";
  return null;
}

/** Every library file below `dir` with its kind (path order); throws GmtFormatError for one of unknown kind. */
export async function layerFilesOfDir(dir: string): Promise<LayerFile[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const out: LayerFile[] = [];
  for (const e of entries) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    const rel = relative(dir, path);
    const kind = layerKindOf(rel);
    // Other files (PROVENANCE.md, a table outside a ppi folder) are not layers.
    if (!GMT_RE.test(e.name) && kind !== "ppi") continue;
    if (kind === null)
      throw new GmtFormatError(
        `library ${rel}: its kind is not in its name (chipseq, coexpression) or folder (kea3/, kinase*/)`,
      );
    out.push({
      path,
      name: rel.replace(GMT_RE, "").replace(PAIRS_RE, "").split(sep).join("/"),
      kind,
    });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Parses every library below `dir` (command line, benchmarks); a stored model version carries its own. */
export async function loadLayersFromDir(dir: string, symbols: SymbolTable): Promise<EvidenceLayer[]> {
  const files = await layerFilesOfDir(dir);
  return Promise.all(files.map(async (f) => parseLayer(await readFile(f.path), f.name, f.kind, symbols)));
}
