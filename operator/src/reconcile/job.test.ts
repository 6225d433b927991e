import { describe, expect, it } from "vitest";
import { deriveCallbackKey, RUNNER_ENV, RUNNER_EXIT } from "@causeway/contract";
import { aCausalAnalysis, aPrediction, JOB_ID, testConfig } from "../../../test/builders/prediction.ts";
import {
  buildJob,
  buildSecret,
  CALLBACK_KEY_DIR,
  CALLBACK_KEY_FIELD,
  childNames,
  isControlledBy,
  RUNNER_COMMAND,
} from "./job.ts";

const config = testConfig();

describe("childNames", () => {
  it("is deterministic per kind and name", () => {
    expect(childNames("prediction", JOB_ID)).toEqual({
      job: `cw-pred-${JOB_ID}`,
      secret: `cw-pred-${JOB_ID}-callback`,
    });
    expect(childNames("causal_analysis", JOB_ID).job).toBe(`cw-ca-${JOB_ID}`);
    expect(childNames("prediction", JOB_ID)).toEqual(childNames("prediction", JOB_ID));
  });

  it("hashes long names down to valid label values", () => {
    const long = "a".repeat(120);
    const names = childNames("prediction", long);
    expect(names.secret.length).toBeLessThanOrEqual(63);
    expect(names.job).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(childNames("prediction", `${long}b`).job).not.toBe(names.job);
  });
});

describe("buildJob", () => {
  const resource = aPrediction().annotate("causeway.io/traceparent", "00-abc-def-01").build();
  const job = buildJob(resource, config);
  const pod = job.spec?.template.spec;
  const container = pod?.containers[0];
  const env = new Map((container?.env ?? []).map((e) => [e.name, e]));

  it("is controlled by the resource, so GC removes it with the resource", () => {
    expect(job.metadata?.ownerReferences).toEqual([
      {
        apiVersion: "causeway.io/v1",
        kind: "Prediction",
        name: JOB_ID,
        uid: "uid-1",
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(isControlledBy(job, resource)).toBe(true);
    expect(isControlledBy(job, aPrediction().uid("other").build())).toBe(false);
  });

  it("carries the contract env: spec, callback URL, key file of the mounted Secret, attempt from the pod name", () => {
    expect(JSON.parse(env.get(RUNNER_ENV.jobSpec)?.value ?? "")).toEqual(resource.spec);
    expect(env.get(RUNNER_ENV.callbackUrl)?.value).toBe(
      `http://causeway-api-callbacks:8080/internal/v1/jobs/prediction/${JOB_ID}/callback`,
    );
    expect(env.has(RUNNER_ENV.callbackKey)).toBe(false);
    expect(env.get(RUNNER_ENV.callbackKeyFile)?.value).toBe(`${CALLBACK_KEY_DIR}/${CALLBACK_KEY_FIELD}`);
    const podSpec = job.spec?.template.spec;
    expect(podSpec?.volumes?.find((v) => v.name === "callback")?.secret).toEqual({
      secretName: `cw-pred-${JOB_ID}-callback`,
      items: [{ key: CALLBACK_KEY_FIELD, path: CALLBACK_KEY_FIELD }],
      defaultMode: 0o440,
    });
    expect(podSpec?.containers[0]?.volumeMounts).toContainEqual({
      name: "callback",
      mountPath: CALLBACK_KEY_DIR,
      readOnly: true,
    });
    expect(env.get(RUNNER_ENV.attempt)?.valueFrom?.fieldRef?.fieldPath).toBe("metadata.name");
    expect(env.get("TRACEPARENT")?.value).toBe("00-abc-def-01");
    expect(env.get("CAUSEWAY_STORAGE")?.value).toBe("s3");
    // The callback key itself never appears in the Job.
    expect(JSON.stringify(job)).not.toContain(deriveCallbackKey(config.callbackServerSecret, JOB_ID));
  });

  it("runs the runner entry point, hardened", () => {
    expect(container?.command).toEqual(RUNNER_COMMAND);
    expect(container?.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
    });
    expect(pod?.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(pod?.automountServiceAccountToken).toBe(false);
    expect(pod?.restartPolicy).toBe("Never");
    expect(container?.volumeMounts).toContainEqual({ name: "tmp", mountPath: "/tmp" });
  });

  it("takes limits from the config", () => {
    expect(job.spec).toMatchObject({
      backoffLimit: 2,
      activeDeadlineSeconds: 3600,
      ttlSecondsAfterFinished: 600,
    });
    expect(container?.resources).toEqual(config.resources);
    expect(container?.image).toBe(config.runnerImage);
  });

  it("fails the Job at once on the runner's reported-failure exit code, where supported", () => {
    expect(job.spec?.podFailurePolicy?.rules[0]).toMatchObject({
      action: "FailJob",
      onExitCodes: { operator: "In", values: [RUNNER_EXIT.jobFailed] },
    });
    const old = buildJob(resource, testConfig({ podFailurePolicy: false }));
    expect(old.spec?.podFailurePolicy).toBeUndefined();
  });

  it("pulls the runner image with the configured pull secrets, and none by default", () => {
    const withSecrets = buildJob(resource, testConfig({ imagePullSecrets: ["regcred", "mirror.example"] }));
    expect(withSecrets.spec?.template.spec?.imagePullSecrets).toEqual([
      { name: "regcred" },
      { name: "mirror.example" },
    ]);
    expect(pod?.imagePullSecrets).toBeUndefined();
    expect(
      buildJob(resource, testConfig({ imagePullSecrets: [] })).spec?.template.spec?.imagePullSecrets,
    ).toBe(undefined);
  });

  it("names causal-analysis Jobs after their kind", () => {
    expect(buildJob(aCausalAnalysis(), config).metadata?.name).toBe(`cw-ca-${JOB_ID}`);
  });
});

describe("buildSecret", () => {
  it("holds the key derived from the server secret and the job id, owned by its Job", () => {
    const resource = aPrediction().build();
    const secret = buildSecret(resource, config, {
      metadata: { name: `cw-pred-${JOB_ID}`, uid: "job-uid-1" },
    });
    expect(secret.stringData?.[CALLBACK_KEY_FIELD]).toBe(
      deriveCallbackKey(config.callbackServerSecret, JOB_ID),
    );
    // The garbage collector removes it with the Job: no delete request of the operator's.
    expect(secret.metadata?.ownerReferences).toEqual([
      { apiVersion: "batch/v1", kind: "Job", name: `cw-pred-${JOB_ID}`, uid: "job-uid-1" },
    ]);
    expect(secret.metadata?.name).toBe(`cw-pred-${JOB_ID}-callback`);
  });

  it("has no owner yet without its Job (the runtime adds the created Job's)", () => {
    expect(buildSecret(aPrediction().build(), config).metadata?.ownerReferences).toEqual([]);
  });
});
