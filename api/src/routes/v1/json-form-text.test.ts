/**
 * Escaped NUL and lone surrogates inside JSON text of a form field (the `degs` array): a 422
 * naming the field and the entry, before anything is stored or charged. As written they are
 * clean text; once parsed they are characters PostgreSQL refuses, which used to surface only
 * when the finished job's results were written.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertCleanFormText } from "../../plugins/text-guard.ts";
import { RequestValidationError } from "../../errors.ts";
import { buildTestApp, splitForm, submissionSnapshot, type TestApp } from "../../testing/helper.ts";

let t: TestApp;
let account: { id: string; key: string };
beforeAll(async () => {
  t = await buildTestApp({ CAUSEWAY_INFLIGHT_LIMIT: "1000", CAUSEWAY_RATE_LIMIT: "100000" });
  account = await t.account("external");
}, 120_000);
afterAll(async () => t.close());

describe("JSON text inside form fields", () => {
  it.each([
    ["an escaped NUL", String.raw`["IRF1","BAD\u0000GENE"]`, 1],
    ["an escaped lone surrogate", String.raw`["IRF1","GBP1","\ud800"]`, 2],
    ["an escaped lone low surrogate", String.raw`["\udc00x"]`, 0],
  ])("%s in degs is a 422 naming the entry; nothing stored or charged", async (_, degs, index) => {
    const before = await submissionSnapshot(t, account.id);
    const form = splitForm({ degs });
    const res = await t.app.inject({
      method: "POST",
      url: "/v1/predictions",
      headers: { ...form.headers, "x-api-key": account.key },
      payload: form.payload,
    });
    expect(res.statusCode).toBe(422);
    expect(res.headers["x-service-error-code"]).toBe("validation_error");
    expect(res.json().detail[0]).toMatchObject({ loc: ["body", "degs", index], type: "string_invalid_text" });
    expect(await submissionSnapshot(t, account.id)).toEqual(before);
    expect(t.dispatcher.specs).toHaveLength(0);
  });

  it("a valid surrogate pair escaped in degs is accepted as text", () => {
    expect(() => assertCleanFormText(String.raw`["\ud83d\ude00"]`, ["body", "degs"])).not.toThrow();
  });

  it("text that only starts like JSON is left to the field's own validation", () => {
    expect(() => assertCleanFormText("[not json", ["body", "label"])).not.toThrow();
    const err = (() => {
      try {
        assertCleanFormText(String.raw`{"a":{"b":"\u0000"}}`, ["body", "label"]);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(RequestValidationError);
    expect((err as RequestValidationError).items[0]!.loc).toEqual(["body", "label", "a", "b"]);
  });
});
