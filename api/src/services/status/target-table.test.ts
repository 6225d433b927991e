import { describe, expect, it } from "vitest";
import { validationArtifacts } from "../../testing/helper.ts";
import { TargetsQuery } from "../../schemas/targets.ts";
import { headPageOf, pageOf, parseTargetTable } from "./target-table.ts";

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
        expect(headPageOf(V1, q, full, pinned)).toEqual(pageOf(parseTargetTable(V1), q, full, pinned));
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
