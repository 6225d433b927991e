/**
 * POST /v1/genes/resolve: a gene list resolved with the default model version's symbol table,
 * exactly as a submitted DEG list would be, so a client can show "N of M recognised" first.
 */
import type { AppContext } from "../../context.ts";
import { getDefaultModel } from "../../db/models.ts";
import { ServiceUnavailable, invalid } from "../../errors.ts";
import type { ResolveGenesRequest, ResolveGenesResponse } from "../../schemas/genes.ts";

export async function resolveGenes(
  ctx: AppContext,
  request: ResolveGenesRequest,
): Promise<ResolveGenesResponse> {
  const model = await getDefaultModel(ctx.db);
  // No model yet (an embedded server still importing its first one): come back later.
  if (!model) throw new ServiceUnavailable();
  const lookup = await ctx.runner.geneLookup(ctx.store, model.version);
  if (request.species === "mouse" && !lookup.hasOrthologues)
    throw invalid(
      ["body", "species"],
      `model version ${model.version} has no mouse–human orthologue table; species=mouse is not available`,
    );
  return lookup.resolveAll(request.genes, request.species);
}
