import { describe, expect, it } from "vitest";
import { ApiException, type V1Job, type V1Secret } from "@kubernetes/client-node";
import { pino } from "pino";
import { aPrediction, JOB_ID, testConfig } from "../../../test/builders/prediction.ts";
import { buildJob, buildSecret } from "../reconcile/job.ts";
import type { Action } from "../reconcile/types.ts";
import { Expectations } from "./expectations.ts";
import type { KubeGateway, StatusWrite } from "./kube.ts";
import { OperatorMetrics } from "./metrics.ts";
import { PassWrites } from "./writes.ts";

const KEY = `prediction/causeway/${JOB_ID}`;
const log = pino({ level: "silent" });

/**
 * A gateway whose writes answer as a test says, after `duringWrite` has run: the place where a
 * watch event faster than the answer arrives.
 */
function setup(answers: {
  status?: () => StatusWrite;
  job?: () => V1Job | "exists";
  deleteResource?: () => "deleted" | "gone" | "conflict";
}) {
  const deletes: unknown[] = [];
  const secrets: V1Secret[] = [];
  let duringWrite: () => void = () => undefined;
  const gateway = {
    applyStatus: async () => {
      duringWrite();
      return (answers.status ?? (() => ({ resourceVersion: "5" })))();
    },
    createJob: async (job: V1Job) => {
      duringWrite();
      return (
        answers.job ?? (() => ({ ...job, metadata: { ...job.metadata, uid: "u", resourceVersion: "7" } }))
      )();
    },
    createSecret: async (secret: V1Secret) => {
      secrets.push(secret);
      return "created" as const;
    },
    deleteResource: async (_resource: unknown, preconditions: unknown) => {
      deletes.push(preconditions);
      return (answers.deleteResource ?? (() => "deleted" as const))();
    },
  } as unknown as KubeGateway;
  const metrics = new OperatorMetrics(false);
  const requeued: string[] = [];
  const statusWrites = new Expectations();
  const jobCreates = new Expectations();
  const writes = new PassWrites({
    gateway,
    metrics,
    statusWrites,
    jobCreates,
    requeue: (source, key) => requeued.push(`${source}:${key}`),
  });
  const triggers = async () =>
    Object.fromEntries(
      (await metrics.reconcileTriggers.get()).values.map((v) => [
        `${v.labels.source}/${v.labels.outcome}`,
        v.value,
      ]),
    );
  return {
    writes,
    statusWrites,
    jobCreates,
    secrets,
    deletes,
    requeued,
    triggers,
    during: (fn: () => void) => (duringWrite = fn),
  };
}

const resource = () => {
  const r = aPrediction().build();
  r.metadata.resourceVersion = "4";
  return r;
};
const createJob = (): Action => {
  const r = resource();
  return { type: "createJob", job: buildJob(r, testConfig()), secret: buildSecret(r, testConfig()) };
};

describe("PassWrites.writeStatus", () => {
  it("an echo during the write is its own; another version is news and queues the key", async () => {
    const t = setup({});
    t.during(() => {
      t.statusWrites.hold(KEY, "4b");
      t.statusWrites.hold(KEY, "5");
    });
    await t.writes.writeStatus(KEY, resource(), { phase: "Pending" }, log);
    expect(await t.triggers()).toEqual({ "resource/own_write": 1, "resource/queued": 1 });
    expect(t.requeued).toEqual([`resource:${KEY}`]);
    expect(t.statusWrites.satisfied(KEY)).toBe(true);
  });

  it("a write whose echo is still to come leaves the copy it replaced superseded", async () => {
    const t = setup({});
    await t.writes.writeStatus(KEY, resource(), { phase: "Pending" }, log);
    expect(t.statusWrites.isSuperseded(KEY, "4")).toBe(true);
    expect(t.statusWrites.observe(KEY, "5")).toEqual({ own: true });
  });

  it("a conflict expects nothing and releases what it held as news", async () => {
    const t = setup({ status: () => "conflict" });
    t.during(() => t.statusWrites.hold(KEY, "6"));
    expect(await t.writes.writeStatus(KEY, resource(), { phase: "Pending" }, log)).toBe("conflict");
    expect(t.requeued).toEqual([`resource:${KEY}`]);
    expect(t.statusWrites.satisfied(KEY)).toBe(true);
  });

  it("a failed write rethrows and releases what it held as news", async () => {
    const t = setup({
      status: () => {
        throw new Error("unavailable");
      },
    });
    t.during(() => t.statusWrites.hold(KEY, "6"));
    await expect(t.writes.writeStatus(KEY, resource(), { phase: "Pending" }, log)).rejects.toThrow(
      "unavailable",
    );
    expect(t.requeued).toEqual([`resource:${KEY}`]);
    expect(t.statusWrites.satisfied(KEY)).toBe(true);
  });
});

describe("PassWrites.apply", () => {
  it("creates the Job, expects its add event, then the Secret owned by it", async () => {
    const t = setup({});
    const action = createJob();
    expect(await t.writes.apply("prediction", KEY, resource(), action, log)).toBe("done");
    const jobKey = `causeway/cw-pred-${JOB_ID}`;
    expect(t.jobCreates.observe(jobKey, "7")).toEqual({ own: true });
    expect(t.secrets.map((s) => s.metadata?.ownerReferences?.[0]?.uid)).toEqual(["u"]);
  });

  it("a Job already there means observe again, with no Secret and nothing expected", async () => {
    const t = setup({ job: () => "exists" });
    t.during(() => t.jobCreates.hold(`causeway/cw-pred-${JOB_ID}`, "3"));
    expect(await t.writes.apply("prediction", KEY, resource(), createJob(), log)).toBe("reobserve");
    expect(t.secrets).toEqual([]);
    expect(t.requeued).toEqual([`job:${KEY}`]);
    expect(await t.triggers()).toEqual({ "job/queued": 1 });
  });

  it.each([400, 403, 422])(
    "a Job the apiserver refuses for good (%i) is a rejection for reconcile, with no Secret",
    async (code) => {
      const message = 'admission webhook "policy.example" denied the request';
      const t = setup({
        job: () => {
          throw new ApiException(code, "Unknown API Status Code!", JSON.stringify({ message }), {});
        },
      });
      expect(await t.writes.apply("prediction", KEY, resource(), createJob(), log)).toEqual({
        rejected: { status: code, message },
      });
      expect(t.secrets).toEqual([]);
      // Nothing is expected of a create that did not happen.
      expect(t.jobCreates.satisfied(`causeway/cw-pred-${JOB_ID}`)).toBe(true);
    },
  );

  it("a transient error of a Job create (503) is thrown for the queue's backoff", async () => {
    const t = setup({
      job: () => {
        throw new ApiException(503, "Unknown API Status Code!", "", {});
      },
    });
    await expect(t.writes.apply("prediction", KEY, resource(), createJob(), log)).rejects.toBeInstanceOf(
      ApiException,
    );
  });

  it.each(["deleted", "gone", "conflict"] as const)(
    "deletes the resource with its uid and resourceVersion as preconditions (%s is done)",
    async (answer) => {
      const t = setup({ deleteResource: () => answer });
      const action: Action = { type: "deleteResource", uid: "uid-1", resourceVersion: "4" };
      expect(await t.writes.apply("prediction", KEY, resource(), action, log)).toBe("done");
      expect(t.deletes).toEqual([{ uid: "uid-1", resourceVersion: "4" }]);
    },
  );

  it("refuses an action it does not know", async () => {
    const t = setup({});
    const unknown = { type: "launchRocket" } as unknown as Action;
    await expect(t.writes.apply("prediction", KEY, resource(), unknown, log)).rejects.toThrow(
      /unknown action/,
    );
  });
});
