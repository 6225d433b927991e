import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  buildTestApp,
  completeJob,
  splitForm,
  submissionSnapshot,
  submit,
  validationArtifacts,
  type TestApp,
} from "../testing/helper.ts";
import { numberKind, numberSpellingItems } from "./number-spelling.ts";

describe("numberKind", () => {
  it("finds numbers through defaults, optionals and preprocessing", () => {
    expect(numberKind(z.coerce.number().int().min(1).default(3))).toBe("integer");
    expect(numberKind(z.number().optional())).toBe("number");
    expect(numberKind(z.preprocess((v) => v, z.number().int().nullable()))).toBe("integer");
    expect(numberKind(z.string())).toBeNull();
  });

  it.each([
    ["integer", "0x10", false],
    ["integer", "1e2", false],
    ["integer", "0b101", false],
    ["integer", "0o17", false],
    ["integer", " 16", false],
    ["integer", "16.0", false],
    ["integer", "Infinity", false],
    ["integer", "16", true],
    ["integer", "007", true],
    ["integer", "-3", true],
    ["number", "1e-9", true],
    ["number", "0.5", true],
    ["number", ".5", true],
    ["number", "0x1f", false],
    ["number", "1_000", true], // NaN to Number(): the schema refuses it
    // Not a number in any spelling: left to the schema, which refuses it with its own message.
    ["number", "NaN", true],
    ["integer", "x", true],
  ] as const)("%s %j accepted: %s", (kind, value, ok) => {
    const schema = z.object({ n: kind === "integer" ? z.coerce.number().int() : z.coerce.number() });
    expect(numberSpellingItems(schema, { n: value }, "query").length === 0).toBe(ok);
  });
});

describe("the routes", () => {
  let t: TestApp;
  let account: { id: string; key: string };
  let done: string;
  beforeAll(async () => {
    t = await buildTestApp({ CAUSEWAY_INFLIGHT_LIMIT: "1000", CAUSEWAY_RATE_LIMIT: "100000" });
    account = await t.account("internal");
    done = await submit(t, account.key);
    await completeJob(t, "prediction", done, validationArtifacts());
  }, 120_000);
  afterAll(async () => t.close());

  const get = (url: string) => t.app.inject({ url, headers: { "x-api-key": account.key } });

  it.each([
    ["/v1/predictions?limit=1e2", "limit"],
    ["/v1/predictions?limit=0x10", "limit"],
    [`/v1/predictions/{done}?max_rows=0x10`, "max_rows"],
    [`/v1/predictions/{done}/causal-graph?top_n_degs=1e1&dpi=100`, "top_n_degs"],
  ])("%s is a 422 naming the parameter", async (url, name) => {
    const res = await get(url.replace("{done}", done));
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0]).toMatchObject({ loc: ["query", name], type: "int_parsing" });
  });

  it("plain decimal is still accepted", async () => {
    expect((await get("/v1/predictions?limit=100")).statusCode).toBe(200);
  });

  it("top_n_causal_degs=0x10 in the form is a 422, nothing stored or charged", async () => {
    const before = await submissionSnapshot(t, account.id);
    const form = splitForm({ top_n_causal_degs: "0x10" });
    const res = await t.app.inject({
      method: "POST",
      url: "/v1/predictions",
      headers: { ...form.headers, "x-api-key": account.key },
      payload: form.payload,
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0]).toMatchObject({ loc: ["body", "top_n_causal_degs"], type: "int_parsing" });
    expect(await submissionSnapshot(t, account.id)).toEqual(before);
  });
});
