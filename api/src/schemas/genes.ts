/** Schemas of POST /v1/genes/resolve: a gene list checked against the model before a submission. */
import { z } from "zod";
import { Species } from "@causeway/contract";
import { MAX_DEGS } from "./predictions.ts";

export const ResolveGenesRequest = z
  .object({
    genes: z.array(z.string().min(1).max(256)).min(1).max(MAX_DEGS).meta({
      description: "Gene identifiers as a DEG list would hold them: symbols or Ensembl gene ids (1..20,000)",
    }),
    species: Species.default("human").meta({
      description:
        "Species of the identifiers: human (default) or mouse (symbols mapped to human through one-to-one orthologues)",
    }),
  })
  .meta({ id: "ResolveGenesRequest" });
export type ResolveGenesRequest = z.infer<typeof ResolveGenesRequest>;

export const ResolvedGene = z
  .object({
    input: z.string().meta({ description: "The identifier as sent" }),
    symbol: z
      .string()
      .nullable()
      .meta({ description: "The human HGNC symbol it resolves to, null when it is not recognised" }),
    in_model: z
      .boolean()
      .meta({ description: "Whether the default model version has a node for the symbol" }),
    suggestion: z.string().optional().meta({
      description:
        "What an unrecognised input probably meant (STAT1 for STAT1|PROTEIN; the orthologue of a symbol of the other species)",
    }),
    ambiguous: z.array(z.string()).optional().meta({
      description:
        "The symbols an input names when it names several (an Ensembl id of two genes, an alias shared by genes): it is left out of a DEG list; send the symbol meant",
    }),
  })
  .meta({ id: "ResolvedGene" });

export const ResolveGenesResponse = z
  .object({
    n_input: z.number().int().meta({ description: "Number of identifiers sent" }),
    n_recognised: z.number().int().meta({ description: "Number of identifiers that resolved to a symbol" }),
    genes: z.array(ResolvedGene).meta({ description: "One entry per identifier, in input order" }),
  })
  .meta({ id: "ResolveGenesResponse" });
export type ResolveGenesResponse = z.infer<typeof ResolveGenesResponse>;
