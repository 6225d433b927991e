import { describe, expect, it } from "vitest";
import { degCheck } from "./deg-check.ts";

const gene = (input: string, symbol: string | null, in_model: boolean) => ({ input, symbol, in_model });

describe("the DEG check", () => {
  it("is not green when genes are missing from the model, and counts them apart", () => {
    const c = degCheck(3, {
      n_input: 3,
      n_recognised: 3,
      genes: [gene("STAT1", "STAT1", true), gene("CMPK2", "CMPK2", false), gene("XYZ", null, false)],
    });
    expect(c.tone).toBe("warn");
    expect(c.text).toBe(
      "1 of 3 genes are in the model; 1 recognised but not in the model; 1 not recognised.",
    );
    expect(c.notInModel.map((g) => g.input)).toEqual(["CMPK2"]);
  });

  it("is green only when every gene is in the model; an empty list is neutral", () => {
    expect(degCheck(1, { n_input: 1, n_recognised: 1, genes: [gene("STAT1", "STAT1", true)] }).tone).toBe(
      "ok",
    );
    expect(degCheck(0, null)).toMatchObject({ text: "No genes yet.", tone: "none" });
  });
});
