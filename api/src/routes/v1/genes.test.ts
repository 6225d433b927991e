/**
 * POST /v1/genes/resolve through the app, with the real symbol and orthologue tables of the
 * shared HGNC snapshot behind the runner piece (the test app's model version has no stored
 * bundle, so the node set is a small stand-in for the model's).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GeneLookup, ORTHOLOGUE_FILE, OrthologueTable, SymbolTable } from "@causeway/runner/symbols";
import { HGNC_DIR } from "../../../../test/shared-data.ts";
import { buildTestApp, type TestApp } from "../../testing/helper.ts";

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await buildTestApp();
  const symbols = await SymbolTable.load(HGNC_DIR);
  const orthologues = OrthologueTable.fromBuffer(await readFile(join(HGNC_DIR, ORTHOLOGUE_FILE)));
  t.runner.lookup = new GeneLookup(symbols, orthologues, new Set(["STAT1", "IRF1", "CXCL8"]));
  key = (await t.account("internal")).key;
}, 120_000);
afterAll(async () => t.close());

const resolve = (body: unknown, apiKey = key) =>
  t.app.inject({
    method: "POST",
    url: "/v1/genes/resolve",
    headers: { "x-api-key": apiKey },
    payload: body as object,
  });

describe("POST /v1/genes/resolve", () => {
  it("resolves symbols, aliases and Ensembl ids and says which the model holds", async () => {
    const res = await resolve({ genes: ["STAT1", "il8", "ENSG00000169429.12", "NOT_A_GENE", "GAPDH"] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      n_input: 5,
      n_recognised: 4,
      genes: [
        { input: "STAT1", symbol: "STAT1", in_model: true },
        { input: "il8", symbol: "CXCL8", in_model: true },
        { input: "ENSG00000169429.12", symbol: "CXCL8", in_model: true },
        { input: "NOT_A_GENE", symbol: null, in_model: false },
        { input: "GAPDH", symbol: "GAPDH", in_model: false },
      ],
    });
    expect(t.runner.lookedUp.at(-1)).toBe("v1");
  });

  it("suggests the symbol for an entity id", async () => {
    const body = (await resolve({ genes: ["STAT1|PROTEIN"] })).json();
    expect(body.n_recognised).toBe(0);
    expect(body.genes[0]).toEqual({
      input: "STAT1|PROTEIN",
      symbol: null,
      in_model: false,
      suggestion: "STAT1",
    });
  });

  it("maps mouse symbols through one-to-one orthologues with species=mouse", async () => {
    const body = (await resolve({ genes: ["Stat1", "Irf1", "STAT1"], species: "mouse" })).json();
    expect(body.genes.map((g: { symbol: string | null }) => g.symbol)).toEqual(["STAT1", "IRF1", "STAT1"]);
    expect(body.n_recognised).toBe(3);
  });

  it("answers 422 for an empty list, a wrong species and a missing body, 401 without a key", async () => {
    for (const bad of [{ genes: [] }, { genes: ["STAT1"], species: "rat" }, {}]) {
      const res = await resolve(bad);
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0].loc[0]).toBe("body");
    }
    expect((await resolve({ genes: ["STAT1"] }, "cw_nope")).statusCode).toBe(401);
  });

  it("is in the OpenAPI document with descriptions", async () => {
    const doc = (await t.app.inject({ url: "/openapi.json" })).json();
    const op = doc.paths["/v1/genes/resolve"].post;
    expect(op.operationId).toBe("resolveGenes");
    expect(op.description).toContain("symbol");
    const schema = doc.components.schemas.ResolveGenesRequest;
    expect(schema.properties.species.description).toContain("orthologues");
  });
});
