/**
 * Where the shared reference data lives: `../shared/data` beside the repository (see
 * ../shared/README.md). Tests and benchmarks read it; the product never bundles it.
 */
import { fileURLToPath } from "node:url";
import { resolve } from "node:path";

export const REPO_ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
export const SHARED_DATA = resolve(REPO_ROOT, "..", "shared", "data");

export const sharedData = (...parts: string[]): string => resolve(SHARED_DATA, ...parts);

export const DEFAULT_NETWORK = sharedData("interactome", "default_interactome.tsv.gz");
export const HGNC_DIR = sharedData("hgnc");
/** HuRI's binary interactions by approved symbol (ppi/PROVENANCE.md): model v4's PPI layer. */
export const HURI_PAIRS = sharedData("ppi", "huri_symbols.tsv.gz");
export const KANG_DIR = sharedData("datasets", "kang2018_ifnb_pbmc");
export const KNOWN_ANSWERS_DIR = sharedData("known_answers");
