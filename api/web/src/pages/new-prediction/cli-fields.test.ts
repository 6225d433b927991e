import { describe, expect, it } from "vitest";
import { prepareCommand } from "./cli-fields.ts";

// The cap itself is checked against the runner's in test/e2e/web-data-inputs.test.ts (the web
// app may not import the runner).
describe("the subsampling advice", () => {
  it("writes the prepare command with the page's columns, quoting what the shell would split", () => {
    expect(
      prepareCommand("my data.h5ad", {
        condition_column: "arm",
        control_level: "unstim",
        cell_type_column: "annot",
        cell_type: "CD14+ Monocytes",
        sample_column: " ",
      }),
    ).toBe(
      "causeway prepare 'my data.h5ad' --condition-column arm --control-level unstim --cell-type-column annot --cell-type 'CD14+ Monocytes' --max-obs 1000 --out prepared",
    );
    expect(prepareCommand("it's.h5ad", {})).toBe(
      "causeway prepare 'it'\\''s.h5ad' --max-obs 1000 --out prepared",
    );
  });
});
