/**
 * A directory of gene-set libraries as evidence layers: every `*.gmt` or `*.gmt.gz` below it,
 * in path order, its kind read from its name (`*chipseq*` → tf_binding, `*coexpression*` →
 * tf_coexpression) or its folder (`kea3`, or a name starting with `kinase` → kinase). This is the layout of ChEA3's
 * and KEA3's public libraries (runner/docs/model-v3.md); a file that fits none of these is an
 * error rather than a guess.
 */
import { readdir, readFile } from "node:fs/promises";
import { basename, join, relative, sep } from "node:path";
import type { SymbolTable } from "../symbols/index.ts";
import { GmtFormatError, parseGmt, type EvidenceLayer, type LayerKind } from "./gmt.ts";

/** One library file found in a directory. */
export interface LayerFile {
  path: string;
  name: string;
  kind: LayerKind;
}

/** The kind of a library file from its path relative to the directory; null when none fits. */
export function layerKindOf(relPath: string): LayerKind | null {
  const lower = relPath.toLowerCase();
  const file = basename(lower);
  if (file.includes("chipseq") || file.includes("chip-seq")) return "tf_binding";
  if (file.includes("coexpression")) return "tf_coexpression";
  const folders = lower.split(sep).slice(0, -1);
  if (folders.some((f) => f === "kea3" || f.startsWith("kinase"))) return "kinase";
  return null;
}

/** Every library file below `dir` with its kind (path order); throws GmtFormatError for one of unknown kind. */
export async function layerFilesOfDir(dir: string): Promise<LayerFile[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const out: LayerFile[] = [];
  for (const e of entries) {
    if (!e.isFile() || !/\.gmt(\.gz)?$/.test(e.name)) continue;
    const path = join(e.parentPath, e.name);
    const rel = relative(dir, path);
    const kind = layerKindOf(rel);
    if (kind === null)
      throw new GmtFormatError(
        `library ${rel}: its kind is not in its name (chipseq, coexpression) or folder (kea3/, kinase*/)`,
      );
    out.push({
      path,
      name: rel
        .replace(/\.gmt(\.gz)?$/, "")
        .split(sep)
        .join("/"),
      kind,
    });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Parses every library below `dir` (command line, benchmarks); a stored model version carries its own. */
export async function loadLayersFromDir(dir: string, symbols: SymbolTable): Promise<EvidenceLayer[]> {
  const files = await layerFilesOfDir(dir);
  return Promise.all(files.map(async (f) => parseGmt(await readFile(f.path), f.name, f.kind, symbols)));
}
