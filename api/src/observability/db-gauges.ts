/**
 * Gauges read from PostgreSQL at scrape time: jobs waiting and running, the age of the oldest
 * waiting job, accounts near their lifetime quota per tier, and the size of each registered
 * model bundle. The database is the only place these are true across replicas and restarts;
 * every replica reports the same values, so dashboards and alerts aggregate them with max().
 * A few aggregate queries per scrape (the unfinished-job partial indexes keep them cheap).
 */
import { Gauge, Registry } from "prom-client";
import type { Queryable } from "../db/database.ts";
import { modelManifests, queueCounts, quotaCounts } from "../db/metrics-queries.ts";
import { manifestBytes } from "./metrics.ts";

const JOB_TYPES = ["target_id", "target_validation", "causal_analysis"] as const;
const TIERS = ["external", "internal"] as const;
/** Share of the lifetime quota from which an account counts as near exhaustion. */
export const QUOTA_NEAR_RATIO = 0.9;
const SAMPLE_TIMEOUT_MS = 2000;

/** Per-app gauges sampled from one database. */
export class DatabaseGauges {
  readonly registry = new Registry();
  private readonly db: Queryable;
  private readonly now: () => Date;
  private readonly defaultQuota: number;

  private readonly jobs = new Gauge({
    name: "causeway_jobs_unfinished",
    help: "Jobs currently pending (queued) or processing, by job type",
    labelNames: ["job_type", "status"],
    registers: [this.registry],
  });
  private readonly oldestPending = new Gauge({
    name: "causeway_jobs_oldest_pending_age_seconds",
    help: "Age of the oldest pending job, by job type (0 when none waits)",
    labelNames: ["job_type"],
    registers: [this.registry],
  });
  private readonly quotaAccounts = new Gauge({
    name: "causeway_quota_accounts",
    help: "Accounts with a non-zero lifetime quota, by tier",
    labelNames: ["tier"],
    registers: [this.registry],
  });
  private readonly quotaNear = new Gauge({
    name: "causeway_quota_accounts_near_exhaustion",
    help: `Accounts that used at least ${QUOTA_NEAR_RATIO * 100}% of their lifetime quota, by tier`,
    labelNames: ["tier"],
    registers: [this.registry],
  });
  private readonly quotaExhausted = new Gauge({
    name: "causeway_quota_accounts_exhausted",
    help: "Accounts with no lifetime quota left, by tier",
    labelNames: ["tier"],
    registers: [this.registry],
  });
  private readonly bundleSize = new Gauge({
    name: "causeway_model_bundle_size_bytes",
    help: "Stored size of each registered model version's bundle (imports at start and by the admin CLI)",
    labelNames: ["version"],
    registers: [this.registry],
  });
  private readonly sampleOk = new Gauge({
    name: "causeway_db_metrics_sample_success",
    help: "1 when the database gauges were read at this scrape, 0 when the database did not answer",
    registers: [this.registry],
  });

  constructor(options: { db: Queryable; now: () => Date; defaultQuota: number }) {
    this.db = options.db;
    this.now = options.now;
    this.defaultQuota = options.defaultQuota;
  }

  /** Refreshes every gauge; on a database failure the previous values stay and success is 0. */
  async sample(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("database gauges timed out")), SAMPLE_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.read(), timeout]);
      this.sampleOk.set(1);
    } catch {
      this.sampleOk.set(0);
    } finally {
      clearTimeout(timer);
    }
  }

  private async read(): Promise<void> {
    const [jobs, quota, models] = await Promise.all([
      queueCounts(this.db),
      quotaCounts(this.db, this.defaultQuota, QUOTA_NEAR_RATIO),
      modelManifests(this.db),
    ]);
    const nowMs = this.now().getTime();
    for (const t of JOB_TYPES) {
      for (const s of ["pending", "processing"]) this.jobs.set({ job_type: t, status: s }, 0);
      this.oldestPending.set({ job_type: t }, 0);
    }
    for (const r of jobs) {
      this.jobs.set({ job_type: r.job_type, status: r.status }, r.n);
      if (r.status === "pending" && r.oldest)
        this.oldestPending.set({ job_type: r.job_type }, Math.max(0, (nowMs - r.oldest.getTime()) / 1000));
    }
    for (const t of TIERS) {
      const r = quota.find((q) => q.tier === t);
      this.quotaAccounts.set({ tier: t }, r?.accounts ?? 0);
      this.quotaNear.set({ tier: t }, r?.near ?? 0);
      this.quotaExhausted.set({ tier: t }, r?.exhausted ?? 0);
    }
    this.bundleSize.reset();
    for (const m of models) {
      const bytes = manifestBytes(m.manifest);
      if (bytes !== null) this.bundleSize.set({ version: m.version }, bytes);
    }
  }
}
