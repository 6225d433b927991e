/**
 * run_metadata.json (model.md §13): what a job was given, what it decided and how long each
 * stage took, so a result can be reproduced and explained.
 */
import { readFileSync } from "node:fs";
import { ARTIFACTS } from "@causeway/contract";
import type { CausalAnalysisResult } from "../causal/index.ts";
import type { ScoreTargetsResult } from "../scoring/index.ts";
import type { ArtifactWriter } from "./artifact-writer.ts";
import type { Contrast } from "./contrast.ts";

const RUNNER_VERSION = (
  JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

export class RunMetadata {
  private readonly base: Record<string, unknown>;
  private readonly timings: Record<string, number> = {};
  private readonly resultSets: Record<string, unknown>[] = [];
  private causal: Record<string, unknown> | null = null;

  constructor(base: Record<string, unknown>) {
    this.base = { ...base, runner_version: RUNNER_VERSION, started_at: new Date().toISOString() };
  }

  set(key: string, value: unknown): void {
    this.base[key] = value;
  }

  time<T>(stage: string, fn: () => T): T {
    const t0 = performance.now();
    try {
      return fn();
    } finally {
      this.timings[stage] = (performance.now() - t0) / 1000;
    }
  }

  async timeAsync<T>(stage: string, fn: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      this.timings[stage] = (performance.now() - t0) / 1000;
    }
  }

  addResultSet(c: Contrast, scores: ScoreTargetsResult): void {
    this.resultSets.push({
      prefix: c.prefix,
      control_level: c.controlLevel,
      perturbed_level: c.perturbedLevel,
      ...c.metadata,
      de: c.de
        ? {
            design: c.de.design,
            size_factors: Object.fromEntries(c.de.samples.map((s, i) => [s, c.de!.sizeFactors[i]])),
            size_factor_method: c.de.sizeFactorMethod,
            n_tested: c.de.genes.length,
            dispersion_trend: c.de.trend,
            warnings: c.de.warnings.map((w) => w.code),
          }
        : null,
      n_universe: scores.N,
      n_mapped_degs: scores.n,
      seed: scores.seedHex ?? null,
    });
  }

  addCausal(result: CausalAnalysisResult): void {
    this.causal = {
      target: result.target,
      degs_total: result.degsTotal,
      n_paths: result.paths.length,
      expansions: result.expansions,
      max_path_length: result.maxPathLength,
      min_path_probability: result.minPathProbability,
      min_path_fraction: result.minPathFraction,
    };
  }

  toJSON(): Record<string, unknown> {
    return {
      ...this.base,
      result_sets: this.resultSets,
      causal: this.causal,
      timings_seconds: this.timings,
      finished_at: new Date().toISOString(),
    };
  }

  async write(out: ArtifactWriter): Promise<void> {
    await out.writeJson(ARTIFACTS.runMetadata, this.toJSON());
  }
}
