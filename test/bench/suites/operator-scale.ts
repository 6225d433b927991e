/**
 * The operator at scale, as the cluster scale test measures it (test/cluster/operator-scale.test.ts
 * against the harness's real kube-apiserver, a kubelet double and a bare client-node informer
 * watching the same load): API requests and reconciles per resource, the slowest Job's delay and
 * the operator's peak RSS. The references are the targets, and for memory the bare informer of
 * the same run (what watching alone costs). Opt-in (`npm run bench operator-scale`): it
 * needs the cluster harness (`npm run test:all` builds it) and several minutes.
 * CAUSEWAY_SCALE_RESOURCES sets the number of resources (default 1000).
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../shared-data.ts";
import type { BenchRow, BenchSuite } from "../bench.ts";

/** What the scale test writes to CAUSEWAY_SCALE_REPORT. */
export interface ScaleReport {
  resources: number;
  jobs: number;
  distinctJobOwners: number;
  terminalAfterSeconds: number;
  requestsPerResource: number;
  baselineRequestsPerResource: number;
  reconcilesPerResource: number;
  slowestJobSeconds: number;
  peakRssMiB: number;
  baselinePeakRssMiB: number;
  targets: {
    requestsPerResource: number;
    reconcilesPerResource: number;
    jobWithinSeconds: number;
    peakRssMiB: number;
  };
}

/** The same run's figures before the operator read its caches and cut its writes (1,000 resources). */
const BEFORE =
  "before: 31.8 requests, 11.4 reconciles per resource, 465 MiB; last release 8.92, 6.01, 433 MiB";

async function runScaleTest(resources: number): Promise<ScaleReport> {
  const dir = await mkdtemp(join(tmpdir(), "causeway-bench-scale-"));
  const reportPath = join(dir, "report.json");
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [
          join(REPO_ROOT, "node_modules", "vitest", "vitest.mjs"),
          "run",
          "--project",
          "cluster",
          "test/cluster/operator-scale.test.ts",
        ],
        {
          cwd: REPO_ROOT,
          env: {
            ...process.env,
            CAUSEWAY_SCALE_RESOURCES: String(resources),
            CAUSEWAY_SCALE_REPORT: reportPath,
          },
          stdio: ["ignore", "inherit", "inherit"],
        },
      );
      child.once("error", reject);
      child.once("exit", resolve);
    });
    if (code !== 0) throw new Error(`the scale test failed (exit ${code}); its output is above`);
    return JSON.parse(await readFile(reportPath, "utf8")) as ScaleReport;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const figure = (measured: number, reference: number, unit = "") => ({
  measured: `${measured.toFixed(2)}${unit}`,
  reference: `${reference.toFixed(2)}${unit}`,
  ratio: reference > 0 ? measured / reference : null,
});

export const suite: BenchSuite = {
  name: "operator-scale",
  optIn: true,
  async run(): Promise<BenchRow[]> {
    const r = await runScaleTest(Number(process.env.CAUSEWAY_SCALE_RESOURCES ?? 1000));
    const t = r.targets;
    const n = `${r.resources} resources, ${r.jobs} Jobs (${r.resources - r.distinctJobOwners} duplicates), all terminal after ${r.terminalAfterSeconds.toFixed(0)} s`;
    return [
      {
        name: "operator API requests per resource",
        seconds: r.terminalAfterSeconds,
        reference: "target",
        referenceSeconds: null,
        figure: figure(r.requestsPerResource, t.requestsPerResource),
        note: `${n}; the bare informer made ${r.baselineRequestsPerResource.toFixed(2)}; ${BEFORE}`,
      },
      {
        name: "reconciles per resource",
        seconds: r.terminalAfterSeconds,
        reference: "target",
        referenceSeconds: null,
        figure: figure(r.reconcilesPerResource, t.reconcilesPerResource),
      },
      {
        name: "slowest Job after its resource",
        seconds: r.slowestJobSeconds,
        reference: "target",
        referenceSeconds: t.jobWithinSeconds,
      },
      {
        name: "operator peak RSS",
        seconds: r.terminalAfterSeconds,
        reference: "bare informer, same run",
        referenceSeconds: null,
        figure: figure(r.peakRssMiB, r.baselinePeakRssMiB, " MiB"),
        note: `target ≤ ${t.peakRssMiB} MiB`,
      },
    ];
  },
};
