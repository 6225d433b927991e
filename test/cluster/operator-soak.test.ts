/**
 * Soak (scenario R16, CI-sized; opt-in with CAUSEWAY_SOAK_CYCLES=<n>): n create → complete →
 * delete cycles through one operator process (Jobs deleted by a zero TTL, watches relisted every
 * 20 s). It must survive with a capped heap, its settled heap must not grow by more than 20 MB,
 * and its open file descriptors must return to the baseline (the client-node FD leak class).
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeConfig } from "@kubernetes/client-node";
import { freePort } from "../harness/ports.ts";
import { waitFor } from "../harness/proc.ts";
import { GROUP, RESOURCES, VERSION } from "@causeway/contract";
import {
  OperatorCluster,
  behave,
  clients,
  createPrediction,
  metricSum,
  testPrediction,
  waitForPhase,
  type OperatorProcess,
} from "../builders/operator-cluster.ts";

const cycles = Number(process.env.CAUSEWAY_SOAK_CYCLES ?? 0);
const namespace = `op-soak-${randomUUID().slice(0, 8)}`;
let cluster: OperatorCluster;
let admin: KubeConfig;
let operator: OperatorProcess;

async function batch(n: number): Promise<void> {
  const rs = Array.from({ length: n }, () => testPrediction(namespace, behave(0, 0)));
  await Promise.all(rs.map((r) => createPrediction(admin, r)));
  await Promise.all(
    rs.map((r) => waitForPhase(admin, namespace, r.metadata.name ?? "", "Completed", 120_000)),
  );
  const { custom } = clients(admin);
  await Promise.all(
    rs.map((r) =>
      custom.deleteNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace,
        plural: RESOURCES.prediction.plural,
        name: r.metadata.name ?? "",
      }),
    ),
  );
}

let inspectPort = 0;

/** Forces a full GC in the operator through its inspector (test-only: no hook in the operator). */
async function collectGarbage(): Promise<void> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const ws = new WebSocket(targets[0]?.webSocketDebuggerUrl ?? "");
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => ws.send(JSON.stringify({ id: 1, method: "HeapProfiler.collectGarbage" }));
    ws.onmessage = () => {
      ws.close();
      resolve();
    };
    ws.onerror = () => reject(new Error("inspector connection failed"));
  });
}

/** Heap and fds after a forced full GC and a short idle: garbage is not a leak. */
async function settled(): Promise<{ heap: number; fds: number }> {
  await sleep(3_000);
  await collectGarbage();
  await sleep(1_000);
  return sample();
}

async function sample(): Promise<{ heap: number; fds: number }> {
  const text = await operator.metrics();
  return {
    heap: metricSum(text, "causeway_operator_nodejs_heap_size_used_bytes"),
    fds: metricSum(text, "causeway_operator_process_open_fds"),
  };
}

// Opt-in (CAUSEWAY_SOAK_CYCLES=N): thousands of create/complete/delete cycles do not fit a CI run.
describe.skipIf(cycles === 0)("operator soak", () => {
  beforeAll(async () => {
    cluster = await OperatorCluster.start("operator-soak", namespace);
    admin = cluster.admin;
    await cluster.startKubelet();
    operator = await cluster.startOperator({
      env: {
        LOG_LEVEL: "info",
        RUNNER_TTL_SECONDS_AFTER_FINISHED: "0",
        CONCURRENCY: "8",
        RELIST_SECONDS: "20",
        // The inspector lets the test force a full GC before measuring.
        NODE_OPTIONS: `--inspect=127.0.0.1:${(inspectPort = await freePort())}`,
      },
    });
  });

  afterAll(() => cluster?.teardown());

  it(
    `${cycles} create/complete/delete cycles leak neither heap nor file descriptors`,
    async () => {
      const size = 10;
      await batch(size); // warm-up: caches, agents, JIT
      const before = await settled();
      const t0 = Date.now();
      for (let done = 0; done < cycles; done += size) {
        await batch(Math.min(size, cycles - done));
        if ((done + size) % 1000 === 0) {
          const now = await sample();
          process.stderr.write(
            `[soak] ${done + size} cycles in ${Math.round((Date.now() - t0) / 1000)} s: heap ${now.heap} bytes, fds ${now.fds}\n`,
          );
        }
      }
      // Let deletes, GC of Jobs and relists settle, then compare.
      await waitFor("fds back to baseline", async () => (await sample()).fds <= before.fds + 5, {
        timeoutMs: 60_000,
        intervalMs: 1_000,
      }).catch(() => undefined);
      const after = await settled();
      expect(operator.proc.exitCode).toBeNull();
      process.stderr.write(
        `[soak] ${cycles} cycles: heap ${before.heap} → ${after.heap} bytes, fds ${before.fds} → ${after.fds}\n`,
      );
      expect(after.heap - before.heap).toBeLessThan(20 * 1024 * 1024);
      expect(Math.abs(after.fds - before.fds)).toBeLessThanOrEqual(5);
      // About 0.3 s per cycle here; a generous second each, beyond the project's 10 minutes.
    },
    Math.max(600_000, cycles * 1000 + 300_000),
  );
});
