/**
 * The ValidationContext of a run on the default network: each influence bundle is built (or read
 * from the on-disk cache, buildModelFromFiles) and loaded once per walk, and shared by every
 * method that asks for it.
 */
import { DEFAULT_NETWORK, HGNC_DIR } from "../../../test/shared-data.ts";
import { buildModelFromFiles, V1_WALK, type Model, type WalkParams } from "@causeway/runner/model";
import { readFile } from "node:fs/promises";
import {
  loadLayersFromDir,
  pairsLayerName,
  parsePairs,
  type EvidenceLayer,
} from "@causeway/runner/libraries";
import type { ValidationContext } from "./methods/method.ts";

export interface ContextOptions {
  librariesDir?: string | null;
  ppiFiles?: readonly string[];
  onProgress?: (walk: string, done: number, total: number) => void;
}

export async function defaultNetworkContext(options: ContextOptions = {}): Promise<ValidationContext> {
  const loaded = new Map<string, Promise<Model>>();
  const bundle = (walk: WalkParams): Promise<Model> => {
    const key = JSON.stringify(walk);
    let m = loaded.get(key);
    if (!m) {
      const progress = options.onProgress;
      m = buildModelFromFiles({
        networkPath: DEFAULT_NETWORK,
        hgncDir: HGNC_DIR,
        walk,
        ...(progress ? { onProgress: (done: number, total: number) => progress(key, done, total) } : {}),
      });
      loaded.set(key, m);
    }
    return m;
  };
  return {
    bundle,
    primary: await bundle(V1_WALK),
    librariesDir: options.librariesDir ?? null,
    ppiFiles: options.ppiFiles ?? [],
  };
}

/**
 * The evidence layers of a run, as a model version imported with them carries them: every
 * library of `--libraries` and every `--ppi` pair file (named by its file, as an import names it).
 */
export async function evidenceLayersOf(
  ctx: Pick<ValidationContext, "librariesDir" | "ppiFiles">,
  model: Model,
): Promise<EvidenceLayer[]> {
  const libraries = ctx.librariesDir ? await loadLayersFromDir(ctx.librariesDir, model.symbols) : [];
  const ppi = await Promise.all(
    ctx.ppiFiles.map(async (f) => parsePairs(await readFile(f), pairsLayerName(f), model.symbols)),
  );
  return [...libraries, ...ppi];
}
