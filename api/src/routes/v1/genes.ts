/** POST /v1/genes/resolve (additive to the contract): check a gene list before submitting it. */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { AppContext } from "../../context.ts";
import { commonErrors } from "../../schemas/common.ts";
import { ResolveGenesRequest, ResolveGenesResponse } from "../../schemas/genes.ts";
import { resolveGenes } from "../../services/submission/genes.ts";

export function geneRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.withTypeProvider<ZodTypeProvider>().post(
    "/v1/genes/resolve",
    {
      schema: {
        summary: "Resolve gene identifiers as a submitted DEG list would be",
        description:
          "Each identifier (HGNC symbol, previous symbol or alias, Ensembl gene id; with species=mouse a " +
          "mouse symbol mapped through one-to-one orthologues) resolved with the default model version's " +
          "symbol table, whether the model has a node for it, and a suggestion for inputs that look like " +
          "something else (an entity id such as STAT1|PROTEIN where a symbol is meant). Counts toward the " +
          "edge limit only, like every read.",
        tags: ["genes"],
        security: [{ ApiKey: [] }],
        body: ResolveGenesRequest,
        response: { 200: ResolveGenesResponse, ...commonErrors },
      },
      // 20,000 identifiers of up to 64 characters exceed the 1 MiB JSON cap; the degs form field allows the same list.
      bodyLimit: ctx.config.uploads.maxFieldBytes,
    },
    async (request) => resolveGenes(ctx, request.body),
  );
}
