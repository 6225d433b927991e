import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Ajv } from "ajv";
import { parse } from "yaml";
import { ROOT } from "./generate.ts";
import { valuesSchema } from "./values-schema.ts";

const valuesText = readFileSync(join(ROOT, "charts", "causeway", "values.yaml"), "utf8");
const schema = JSON.parse(
  readFileSync(join(ROOT, "charts", "causeway", "values.schema.json"), "utf8"),
) as Record<string, unknown>;
const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
const values = () => parse(valuesText) as Record<string, Record<string, unknown>>;

describe("chart values", () => {
  it("the default values validate against values.schema.json", () => {
    expect(validate(values()), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each([
    ["an unknown top-level key", (v: Record<string, Record<string, unknown>>) => ({ ...v, typo: 1 })],
    [
      "a bad pull policy",
      (v: Record<string, Record<string, unknown>>) => ({
        ...v,
        image: { ...v.image, pullPolicy: "Sometimes" },
      }),
    ],
    [
      "a string replica count",
      (v: Record<string, Record<string, unknown>>) => ({ ...v, api: { ...v.api, replicaCount: "2" } }),
    ],
    [
      "zero operator concurrency",
      (v: Record<string, Record<string, unknown>>) => ({ ...v, operator: { ...v.operator, concurrency: 0 } }),
    ],
  ])("rejects %s", (_name, mutate) => {
    expect(validate(mutate(values()))).toBe(false);
  });

  it("refuses undocumented values", () => {
    expect(() => valuesSchema(`${valuesText}\nundocumented: 1\n`)).toThrow(/undocumented \[undocumented\]/);
    expect(() => valuesSchema(`## @param ghost.value Nothing\n${valuesText}`)).toThrow(
      /unknown @param \[ghost.value\]/,
    );
  });
});
