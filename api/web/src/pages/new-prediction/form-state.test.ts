import { describe, expect, it } from "vitest";
import { fieldsAskedFor } from "./form-state.ts";

describe("fix and resubmit", () => {
  it("reads the fields a failure asks to set", () => {
    expect(
      fieldsAskedFor(
        "no condition column found; set condition_column=arm, or submit again with species=mouse.",
      ),
    ).toEqual({ condition_column: "arm", species: "mouse" });
  });
});
