/**
 * Gene lists checked before a submission (POST /v1/genes/resolve): each input resolved as a DEG
 * list would be (symbols, Ensembl ids, mouse symbols through orthologues), whether the model has
 * a node for it, and a suggestion when the input looks like something it is not (an entity id
 * where a symbol is meant, a mouse symbol where human genes are expected).
 */
import type { Species } from "@causeway/contract";
import type { OrthologueTable } from "./orthologues.ts";
import { MOUSE_STYLE_RE, NoOrthologueTable, speciesResolver } from "./species.ts";
import type { SymbolTable } from "./symbol-table.ts";

export const ENSEMBL_GENE_RE = /^ENS[A-Z]*G\d{11}(\.\d+)?$/i;
const ENTITY_RE = /^([^|>\s]+)\|(PROTEIN|RNA)$/i;

export interface ResolvedGene {
  input: string;
  symbol: string | null;
  in_model: boolean;
  suggestion?: string;
  /** The symbols an input names when it names several (it then resolves to none of them). */
  ambiguous?: string[];
}

export class GeneLookup {
  readonly symbols: SymbolTable;
  readonly orthologues: OrthologueTable | null;
  /** Symbols with a node (PROTEIN or RNA) in the model. */
  private readonly modelSymbols: ReadonlySet<string>;

  constructor(symbols: SymbolTable, orthologues: OrthologueTable | null, modelSymbols: ReadonlySet<string>) {
    this.symbols = symbols;
    this.orthologues = orthologues;
    this.modelSymbols = modelSymbols;
  }

  get hasOrthologues(): boolean {
    return this.orthologues !== null;
  }

  /** Resolves one identifier as a DEG list entry; throws NoOrthologueTable for mouse without a table. */
  resolve(input: string, species: Species): ResolvedGene {
    const resolver = speciesResolver(this.symbols, this.orthologues, species);
    const id = input.trim();
    const symbol = ENSEMBL_GENE_RE.test(id) ? resolver.resolveEnsembl(id) : resolver.resolve(id);
    const out: ResolvedGene = { input, symbol, in_model: symbol !== null && this.modelSymbols.has(symbol) };
    // The orthologue table is one-to-one, so only human identifiers can name several genes.
    const several =
      symbol === null && species === "human"
        ? ENSEMBL_GENE_RE.test(id)
          ? this.symbols.ambiguousEnsembl(id)
          : this.symbols.ambiguousSymbols(id)
        : [];
    if (several.length > 1) out.ambiguous = several;
    const suggestion = symbol === null && several.length === 0 ? this.suggest(id, species) : null;
    if (suggestion !== null) out.suggestion = suggestion;
    return out;
  }

  /** What an unresolved input probably meant, or null. */
  private suggest(id: string, species: Species): string | null {
    const entity = ENTITY_RE.exec(id);
    if (entity) {
      // A gene list takes symbols: `STAT1|PROTEIN` means STAT1.
      const inner = this.resolve(entity[1]!, species).symbol;
      return inner;
    }
    const unquoted = id.replace(/^["']+|["']+$/g, "").trim();
    if (unquoted !== id && unquoted !== "") return this.resolve(unquoted, species).symbol;
    if (species === "mouse") {
      // A human symbol sent as mouse: its orthologue, if the table has one.
      const human = this.symbols.resolve(id);
      const mouse = human === null ? null : (this.orthologues?.mouseOf(human) ?? null);
      return mouse === null ? null : mouse;
    }
    if (MOUSE_STYLE_RE.test(id) && this.orthologues) {
      const human = this.orthologues.humanOf(id);
      return human === null ? null : this.symbols.resolve(human);
    }
    return null;
  }

  /** Resolves a list; n_recognised counts inputs that resolved to a symbol. */
  resolveAll(
    inputs: readonly string[],
    species: Species,
  ): {
    n_input: number;
    n_recognised: number;
    genes: ResolvedGene[];
  } {
    if (species === "mouse" && !this.orthologues) throw new NoOrthologueTable();
    const genes = inputs.map((g) => this.resolve(g, species));
    return { n_input: inputs.length, n_recognised: genes.filter((g) => g.symbol !== null).length, genes };
  }
}
