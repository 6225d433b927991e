import { describe, expect, it } from "vitest";
import { DownloadTokens } from "./download-tokens.ts";

describe("DownloadTokens", () => {
  const tokens = new DownloadTokens("s".repeat(40));
  it("round-trips an unexpired grant and hides the key", () => {
    const token = tokens.seal({
      key: "jobs/prediction/abc/x/target_scores.tsv",
      filename: "target_scores.tsv",
      expiresAtMs: 2000,
    });
    expect(token).not.toContain("target_scores");
    expect(tokens.open(token, 1000)).toEqual({
      key: "jobs/prediction/abc/x/target_scores.tsv",
      filename: "target_scores.tsv",
      expiresAtMs: 2000,
    });
    expect(tokens.open(token, 2000)).toBeNull();
  });
  it("refuses tampered tokens and tokens of another secret", () => {
    const token = tokens.seal({ key: "k", filename: "f", expiresAtMs: 5000 });
    const raw = Buffer.from(token, "base64url");
    raw[raw.length - 1] ^= 1;
    expect(tokens.open(raw.toString("base64url"), 0)).toBeNull();
    expect(new DownloadTokens("t".repeat(40)).open(token, 0)).toBeNull();
    expect(tokens.open("", 0)).toBeNull();
    expect(tokens.open("!!!", 0)).toBeNull();
  });
});
