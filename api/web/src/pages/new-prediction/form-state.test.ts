import { describe, expect, it } from "vitest";
import { cellTypeChoice, fieldsAskedFor } from "./form-state.ts";

describe("fix and resubmit", () => {
  it("reads the fields a failure asks to set", () => {
    expect(
      fieldsAskedFor(
        "no condition column found; set condition_column=arm, or submit again with species=mouse.",
      ),
    ).toEqual({ condition_column: "arm", species: "mouse" });
  });

  it("reads a cell type with a space, quoted as the runner writes it now", () => {
    const message =
      'The merged file holds 5 cell types in "cell_type" ("B cells", "CD14+ Monocytes", "CD4 T cells", "NK cells", "FCGR3A+ Monocytes"); one prediction analyzes one cell type. Set cell_type to the one to analyse (for example cell_type="B cells"), or subset the data to one cell type.';
    expect(fieldsAskedFor(message)).toEqual({ cell_type: "B cells" });
  });

  it("reads a bare value with spaces, as the runner wrote it before quoting", () => {
    expect(
      fieldsAskedFor(
        "Set cell_type to the one to analyse (for example cell_type=B cells), or subset the data.",
      ),
    ).toEqual({ cell_type: "B cells" });
    expect(fieldsAskedFor("for example cell_type=CD4 T cells.")).toEqual({ cell_type: "CD4 T cells" });
    expect(fieldsAskedFor("set sample_column=orig.ident or donor_column=donor id.")).toEqual({
      sample_column: "orig.ident",
      donor_column: "donor id",
    });
  });

  it("reads quoted values with escapes and single quotes", () => {
    expect(fieldsAskedFor('cell_type="T \\"naive\\" cells", control_level=\'ctrl a\'')).toEqual({
      cell_type: 'T "naive" cells',
      control_level: "ctrl a",
    });
  });
});

describe("the cell type a merged file needs", () => {
  const levels = ["B cells", "CD14+ Monocytes", "NK cells"];
  it("asks for a choice when the file holds several cell types", () => {
    expect(cellTypeChoice(levels, "")).toBe("choose");
    expect(cellTypeChoice(levels, undefined)).toBe("choose");
    expect(cellTypeChoice(["B cells"], "")).toBe("ok");
    expect(cellTypeChoice([], "")).toBe("ok");
  });
  it("flags a value that is none of the file's levels (a truncated refill)", () => {
    expect(cellTypeChoice(levels, "B")).toBe("unknown");
    expect(cellTypeChoice(levels, "B cells")).toBe("ok");
    expect(cellTypeChoice([], "B")).toBe("ok");
  });
});
