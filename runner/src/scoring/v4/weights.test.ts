import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { V4_MODEL, V4_MODEL_PATH, V4ModelSchema } from "./weights.ts";

describe("v4-model.json", () => {
  const file = JSON.parse(readFileSync(V4_MODEL_PATH, "utf8")) as Record<string, unknown>;

  it("is the model v4 scores with: every weight group, a temperature and a set rule per calibration group", () => {
    expect(V4ModelSchema.parse(file)).toEqual(V4_MODEL);
    expect(Object.keys(V4_MODEL.predictionSet)).toHaveLength(6 * 4 * 2);
  });

  it("refuses a file a fit could get wrong: an unknown feature, a missing calibration group, a stray field", () => {
    const withFeature = { ...file, shared: { ...V4_MODEL.shared, not_a_feature: 1 } };
    expect(V4ModelSchema.safeParse(withFeature).success).toBe(false);
    const sets = { ...V4_MODEL.predictionSet } as Record<string, unknown>;
    delete sets["ligand/signed/long"];
    expect(V4ModelSchema.safeParse({ ...file, predictionSet: sets }).success).toBe(false);
    expect(V4ModelSchema.safeParse({ ...file, parameters: 400 }).success).toBe(false);
    expect(V4ModelSchema.safeParse({ ...file, temperature: 0 }).success).toBe(false);
    const counts = { ...V4_MODEL.developmentCases } as Record<string, unknown>;
    delete counts["unknown/table"];
    expect(V4ModelSchema.safeParse({ ...file, developmentCases: counts }).success).toBe(false);
  });

  it("counts the development experiments of every weight group: a group the fit saw none of has no deviation", () => {
    const groups = Object.entries(V4_MODEL.developmentCases);
    expect(groups).toHaveLength(6 * 4);
    for (const [group, n] of groups) {
      const deviations = Object.values(V4_MODEL.byGroup[group as keyof typeof V4_MODEL.byGroup] ?? {});
      if (n === 0) expect(deviations.every((w) => w === 0)).toBe(true);
      else expect(deviations.some((w) => w !== 0)).toBe(true);
    }
  });
});
