import { describe, expect, it } from "vitest";
import { setSizeOf, setSizeSentence } from "./set-note.ts";

describe("the 90 % prediction set in words", () => {
  it("says how large a set that holds most candidates is, and that the data say little", () => {
    expect(setSizeSentence(8129, 10908)).toBe(
      "The 90 % prediction set holds 8,129 of 10,908 candidates (75 %): these data say little about which protein drove the change. Read the top ranks as leads to test, not an answer.",
    );
  });

  it("tells a set of 582 from a set of 8,129", () => {
    const s = setSizeSentence(582, 10908)!;
    expect(s).toContain("holds 582 of 10,908 candidates (5 %)");
    expect(s).not.toContain("say little");
  });

  it("states a small set plainly (1 to 20)", () => {
    expect(setSizeSentence(8, 10908)).toBe(
      "The 90 % prediction set holds 8 of 10,908 candidates: a short list. In comparable experiments, such a set held the driver 9 times in 10.",
    );
    expect(setSizeSentence(1, 10908)).toContain("holds 1 of 10,908 candidates: a short list");
    expect(setSizeSentence(50, 10908)).toContain("holds 50 of 10,908 candidates (under 1 %)");
  });

  it("says nothing when the size is unknown", () => {
    expect(setSizeSentence(null, 10908)).toBeNull();
    expect(setSizeSentence(5, 0)).toBeNull();
  });

  it("reads the size from a row's cells", () => {
    expect(setSizeOf({ prediction_set_size: 8129, in_prediction_set: false })).toBe(8129);
    expect(setSizeOf({ prediction_set_size: null })).toBeNull();
    expect(setSizeOf(undefined)).toBeNull();
  });
});
