import { describe, expect, it } from "vitest";
import { downloadName, predictionTitle } from "./download-name.ts";

const id = "c1491e7f-1111-4222-8333-444455556666";

describe("names that carry the prediction's identity", () => {
  it("puts the label and the short id before the file's name", () => {
    expect(
      downloadName("target_scores.tsv", {
        prediction_id: id,
        label: "Kang CD14 monocytes, IFN-β (target_id)",
      }),
    ).toBe("Kang-CD14-monocytes-IFN-target_id_c1491e7f_target_scores.tsv");
  });

  it("uses the short id alone without a label, and never a path or markup", () => {
    expect(downloadName("degs.tsv", { prediction_id: id })).toBe("c1491e7f_degs.tsv");
    expect(downloadName("degs.tsv", { prediction_id: id, label: "../<img src=x>" })).toBe(
      "img-src-x_c1491e7f_degs.tsv",
    );
    expect(downloadName("degs.tsv", { prediction_id: id, label: "x".repeat(100) })).toBe(
      `${"x".repeat(48)}_c1491e7f_degs.tsv`,
    );
  });

  it("titles a prediction's tab by its label or short id and its status", () => {
    expect(predictionTitle({ prediction_id: id, label: "Kang STAT1" }, "completed")).toBe(
      "Kang STAT1 (completed) · causeway",
    );
    expect(predictionTitle({ prediction_id: id, label: "" }, "processing")).toBe(
      "Prediction c1491e7f (processing) · causeway",
    );
  });
});
