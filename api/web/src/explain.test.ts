import { describe, expect, it } from "vitest";
import { CausewayError } from "@causeway/api/client/errors";
import { explain, retryable, withFieldLabels } from "./explain.ts";

describe("the service's refusals in the form's words", () => {
  it("names the form's field, with its file, instead of the field path", () => {
    const err = new CausewayError(
      "invalid_h5ad",
      "body.dataset_control: The file is not an HDF5 file; upload an AnnData .h5ad file written by anndata.",
      400,
    );
    expect(explain(err, { dataset_control: "Control cells (fake.h5ad)" })).toBe(
      "Control cells (fake.h5ad): The file is not an HDF5 file; upload an AnnData .h5ad file written by anndata.",
    );
    expect(explain(err)).toMatch(/^Control cells: The file is not an HDF5 file/);
  });

  it("drops body. from a field the form does not name, and leaves other colons alone", () => {
    expect(withFieldLabels("body.min_fdr_q: must be at most 1; degs.3: too long")).toBe(
      "min_fdr_q: must be at most 1; DEGs: too long",
    );
    expect(withFieldLabels("note: the file has 3 arms")).toBe("note: the file has 3 arms");
  });
});

describe("which failed reads are worth trying again", () => {
  it("is the service out of reach, busy or pacing the page, not a refusal or a fault of the page", () => {
    expect(retryable(new CausewayError("network_error", "cannot reach http://x", 0))).toBe(true);
    expect(retryable(new CausewayError("service_unavailable", "restarting", 503))).toBe(true);
    expect(retryable(new CausewayError("edge_blocked", "blocked", 403))).toBe(true);
    expect(retryable(new CausewayError("not_found", "no such prediction", 404))).toBe(false);
    expect(retryable(new CausewayError("unauthorized", "bad key", 401))).toBe(false);
    expect(retryable(new TypeError("x is undefined"))).toBe(false);
  });
});
