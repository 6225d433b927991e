import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Ajv } from "ajv";
import { parse } from "yaml";
import { ROOT } from "./generate.ts";
import { DURATION_PATTERN, LABEL_SELECTOR_MESSAGE, QUANTITY_PATTERN, valuesSchema } from "./values-schema.ts";

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

  /** The values with `value` at the dotted `path` (a deep copy). */
  const withValue = (path: string, value: unknown): Record<string, unknown> => {
    const out = structuredClone(values()) as Record<string, unknown>;
    const keys = path.split(".");
    let node = out;
    for (const k of keys.slice(0, -1)) node = node[k] as Record<string, unknown>;
    node[keys.at(-1) ?? ""] = value;
    return out;
  };
  const errorsOf = (v: unknown): string => JSON.stringify(validate(v) ? [] : validate.errors);

  // Values that render but fail later: at the apiserver, in the operator, or in the API at start.
  it.each([
    ["a memory limit in GB", "runner.resources.limits.memory", "4GB"],
    ["a cpu request with a space", "api.resources.requests.cpu", "250 m"],
    ["a negative memory request", "operator.resources.requests.memory", "-1Gi"],
    ["a resources key other than requests/limits", "migrations.resources", { request: { cpu: "1" } }],
    ["a bad runner /tmp size", "runner.tmpSizeLimit", "8 GiB"],
    ["a bad API /tmp size", "api.tmpSizeLimit", "lots"],
    ["an empty bucket", "s3.bucket", ""],
    ["port 0", "api.containerPort", 0],
    ["port 65536", "api.service.port", 65536],
    ["a metrics port above 65535", "api.metricsPort", 70000],
    ["an operator port of 0", "operator.containerPort", 0],
    ["an empty callback secret key", "callbacks.secretKey", ""],
    ["a callback secret key with a slash", "callbacks.secretKey", "a/b"],
    ["a scrape interval without a unit", "metrics.serviceMonitor.interval", "30"],
    ["an empty scrape interval", "metrics.serviceMonitor.interval", ""],
    ["a scrape interval in Go's spelling", "metrics.serviceMonitor.interval", "1m30.5s"],
    ["a zero lease duration", "operator.leaderElection.leaseDurationSeconds", 0],
    ["a negative resource TTL", "operator.resourceTtlSecondsAfterFinished", -1],
    ["a fractional resource TTL", "operator.resourceTtlSecondsAfterFinished", 1.5],
    ["a PDB mode other than auto/true/false", "api.pdb.create", "sometimes"],
    ["a digest with its @", "runner.image.digest", "@sha256:" + "a".repeat(64)],
    ["a digest without an algorithm", "api.image.digest", "a".repeat(64)],
    ["an empty image repository", "operator.image.repository", ""],
    ["the removed global image.digest", "image.digest", "sha256:" + "a".repeat(64)],
    ["the removed global image.repository", "image.repository", "causeway/causeway"],
    ["a pull secret as a bare string", "imagePullSecrets", ["regcred"]],
  ])("rejects %s", (_name, path, value) => {
    expect(validate(withValue(path, value)), `${path}=${JSON.stringify(value)}`).toBe(false);
  });

  it.each([
    ["fractional cpu", "runner.resources.requests.cpu", "0.5"],
    ["numeric cpu", "runner.resources.requests.cpu", 2],
    ["millicores", "api.resources.limits.cpu", "1500m"],
    ["ephemeral storage", "runner.resources.requests.ephemeral-storage", "10Gi"],
    ["an exponent", "api.tmpSizeLimit", "1e9"],
    ["decimal suffixes", "runner.tmpSizeLimit", "8G"],
    ["a compound duration", "metrics.serviceMonitor.interval", "1m30s"],
    ["PDB true from --set", "api.pdb.create", true],
    ["PDB false", "api.pdb.create", false],
    ["podFailurePolicy true from --set", "operator.podFailurePolicy", true],
    ["a digest", "operator.image.digest", "sha256:" + "0123456789abcdef".repeat(4)],
    ["resources kept forever", "operator.resourceTtlSecondsAfterFinished", 0],
    ["pull secrets", "imagePullSecrets", [{ name: "regcred" }, { name: "other" }]],
    [
      "a namespace selector by labels",
      "networkPolicy.ingressNamespaceSelector",
      { matchLabels: { team: "edge" } },
    ],
    [
      "a namespace selector by expressions",
      "networkPolicy.ingressNamespaceSelector",
      {
        matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: ["ingress-nginx"] }],
      },
    ],
  ])("accepts %s", (_name, path, value) => {
    expect(validate(withValue(path, value)), errorsOf(withValue(path, value))).toBe(true);
  });

  it("requires a LabelSelector for networkPolicy.ingressNamespaceSelector and says so", () => {
    const flat = withValue("networkPolicy.ingressNamespaceSelector", {
      "kubernetes.io/metadata.name": "ingress",
    });
    expect(validate(flat)).toBe(false);
    expect(errorsOf(flat)).toContain(LABEL_SELECTOR_MESSAGE);
    expect(LABEL_SELECTOR_MESSAGE).toMatch(/matchLabels/);
    const badOperator = withValue("networkPolicy.ingressNamespaceSelector", {
      matchExpressions: [{ key: "a", operator: "Equals", values: ["b"] }],
    });
    expect(validate(badOperator)).toBe(false);
    const numericLabel = withValue("networkPolicy.ingressNamespaceSelector", { matchLabels: { tier: 1 } });
    expect(validate(numericLabel)).toBe(false);
  });

  it("quantity and duration patterns match Kubernetes' and the Prometheus Operator's grammar", () => {
    const quantity = new RegExp(QUANTITY_PATTERN);
    for (const ok of ["1", "250m", "0.5", ".5", "512Mi", "4Gi", "1e9", "1E3", "100k", "2Ti"])
      expect(quantity.test(ok), ok).toBe(true);
    for (const bad of ["", "4GB", "1 Gi", "-1", "Gi", "1.2.3", "1Kib", "0x10"])
      expect(quantity.test(bad), bad).toBe(false);
    const duration = new RegExp(DURATION_PATTERN);
    for (const ok of ["30s", "1m", "1m30s", "1h", "500ms", "0", "1d"])
      expect(duration.test(ok), ok).toBe(true);
    for (const bad of ["30", "1.5m", "30 s", "-1s", "1M"]) expect(duration.test(bad), bad).toBe(false);
  });

  it("refuses undocumented values", () => {
    expect(() => valuesSchema(`${valuesText}\nundocumented: 1\n`)).toThrow(/undocumented \[undocumented\]/);
    expect(() => valuesSchema(`## @param ghost.value Nothing\n${valuesText}`)).toThrow(
      /unknown @param \[ghost.value\]/,
    );
    // A constraint whose value is gone (here: s3.bucket) would constrain nothing.
    expect(() =>
      valuesSchema(valuesText.replace(/^\s*## @param s3\.bucket .*\n\s*bucket: .*\n/m, "\n")),
    ).toThrow(/constraints of no value \[s3.bucket\]/);
  });
});
