import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";

/** The settings without which the operator does not start. */
const REQUIRED = {
  RUNNER_IMAGE: "registry.example/causeway:1.0.0",
  CAUSEWAY_CALLBACK_BASE_URL: "http://causeway-api-callbacks:8080",
  CAUSEWAY_CALLBACK_SECRET: "s".repeat(32),
  CAUSEWAY_STORAGE: "fs",
};

describe("loadConfig: RUNNER_IMAGE_PULL_SECRETS", () => {
  it.each([
    { value: undefined, want: [] },
    { value: "", want: [] },
    { value: "regcred", want: ["regcred"] },
    // The chart joins `.Values.imagePullSecrets` names with commas.
    { value: "regcred,mirror.example.com", want: ["regcred", "mirror.example.com"] },
    { value: " regcred , other-1 ,", want: ["regcred", "other-1"] },
  ])("$value → $want", ({ value, want }) => {
    const env = value === undefined ? REQUIRED : { ...REQUIRED, RUNNER_IMAGE_PULL_SECRETS: value };
    expect(loadConfig(env).reconcile.imagePullSecrets).toEqual(want);
  });

  it.each(["RegCred", "reg_cred", "-regcred", "regcred-", "a..b", `${"a".repeat(254)}`])(
    "refuses %s, which is not a DNS-1123 subdomain",
    (name) => {
      expect(() => loadConfig({ ...REQUIRED, RUNNER_IMAGE_PULL_SECRETS: `ok,${name}` })).toThrow(
        /RUNNER_IMAGE_PULL_SECRETS\.1: /,
      );
    },
  );
});

describe("loadConfig: RESOURCE_TTL_SECONDS_AFTER_FINISHED", () => {
  it.each([
    { value: undefined, want: 0 },
    { value: "0", want: 0 },
    { value: "604800", want: 604_800 },
  ])("$value → $want (0: kept forever)", ({ value, want }) => {
    const env = value === undefined ? REQUIRED : { ...REQUIRED, RESOURCE_TTL_SECONDS_AFTER_FINISHED: value };
    expect(loadConfig(env).reconcile.resourceTtlSecondsAfterFinished).toBe(want);
  });

  it.each(["-1", "1.5", "a week"])("refuses %s", (value) => {
    expect(() => loadConfig({ ...REQUIRED, RESOURCE_TTL_SECONDS_AFTER_FINISHED: value })).toThrow(
      /RESOURCE_TTL_SECONDS_AFTER_FINISHED/,
    );
  });
});
