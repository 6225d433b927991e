import { describe, expect, it } from "vitest";
import { validationArtifacts } from "../../testing/helper.ts";
import { TargetsQuery } from "../../schemas/targets.ts";
import { facetsOf, headPageOf, pageOf, parseTargetTable } from "./target-table.ts";

const V1 = validationArtifacts()["target_scores.tsv"] as string;

describe("the first view from the rows it shows", () => {
  it("is the page the whole table gives, pinned row and counts included", () => {
    for (const [query, pinned] of [
      [{}, "STAT1|PROTEIN"],
      [{ limit: "1" }, "IRF9|PROTEIN"],
      [{ offset: "1", limit: "1" }, null],
      [{ offset: "5" }, "JAK1|PROTEIN"],
    ] as const) {
      const q = TargetsQuery.parse(query);
      for (const full of [true, false]) {
        // The facets need every row, so the first view leaves them to the next request.
        const { facets: _facets, ...whole } = pageOf(parseTargetTable(V1), q, full, pinned);
        expect(headPageOf(V1, q, full, pinned)).toEqual(whole);
      }
    }
  });

  it("leaves tables with proxies to the whole table (a hub's proxies may lie beyond the page)", () => {
    const withProxies = V1.replace("qvalue\n", "qvalue\tproxy_of\n")
      .replace(/\n(?=.)/g, "\tNA\n")
      .replace("proxy_of\tNA\n", "proxy_of\n");
    expect(headPageOf(withProxies, TargetsQuery.parse({}), true, null)).toBeNull();
  });
});

describe("facets", () => {
  it("count the tiers and directions rows have, and only those", () => {
    const tsv = [
      "id\tscore\trank\tunmeasured\tgene_measured\tprotein_expressed\tpvalue_expressed\tactivation_z",
      "STAT1|PROTEIN\t0.9\t0\tafter_measured\tTRUE\tTRUE\t0.5\t2.1",
      "IRF9|PROTEIN\t0.8\t1\tafter_measured\tFALSE\tTRUE\t0.5\t1.2",
      "NFKB1|PROTEIN\t0.7\t2\tafter_measured\tFALSE\tTRUE\t0.5\tNA",
    ].join("\n");
    const t = parseTargetTable(tsv);
    expect(facetsOf(t)).toEqual({
      tier: { measured: 1, not_measured: 2 },
      direction: { activated: 2, undetermined: 1 },
    });
    expect(pageOf(t, TargetsQuery.parse({ tier: "not_expressed" }), true, null).facets).toEqual(facetsOf(t));
    expect(pageOf(t, TargetsQuery.parse({}), false, null).facets).toBeUndefined();
  });
});
