/**
 * `npm run bench [suite...]`: runs every suite in test/bench/suites (or the named ones) and
 * prints one table of measured figure, reference figure and their ratio, with the machine's
 * load average before and after (the machine is shared: ratios, not absolutes, compare runs).
 */
import { readdir } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import type { BenchRow, BenchSuite } from "./bench.ts";

const suitesDir = fileURLToPath(new URL("./suites/", import.meta.url));
const wanted = new Set(process.argv.slice(2));
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const loadBefore = load();

const files = (await readdir(suitesDir)).filter((f) => f.endsWith(".ts")).sort();
const rows: (BenchRow & { suite: string })[] = [];
for (const file of files) {
  const mod = (await import(new URL(`./suites/${file}`, import.meta.url).href)) as { suite: BenchSuite };
  if (wanted.size > 0 ? !wanted.has(mod.suite.name) : mod.suite.optIn) continue;
  process.stderr.write(`running ${mod.suite.name}... (load average ${load()})\n`);
  for (const row of await mod.suite.run()) rows.push({ ...row, suite: mod.suite.name });
}

const fmt = (s: number | null) =>
  s === null ? "n/a" : s < 1 ? `${(s * 1000).toFixed(1)} ms` : `${s.toFixed(2)} s`;
console.log(
  `machine: ${cpus().length} cores, load average (1/5/15 min) ${loadBefore} at start, ${load()} at end; node ${process.version}`,
);
console.log("| suite | measured | value | reference | reference value | ratio | note |");
console.log("|---|---|---|---|---|---|---|");
for (const r of rows) {
  if (r.figure) {
    const ratio = r.figure.ratio === null ? "n/a" : r.figure.ratio.toPrecision(3);
    console.log(
      `| ${r.suite} | ${r.name} | ${r.figure.measured} | ${r.reference} | ${r.figure.reference} | ${ratio} | ${r.note ?? ""} |`,
    );
    continue;
  }
  const ratio = r.referenceSeconds ? (r.seconds / r.referenceSeconds).toFixed(2) : "n/a";
  console.log(
    `| ${r.suite} | ${r.name} | ${fmt(r.seconds)} | ${r.reference} | ${fmt(r.referenceSeconds)} | ${ratio} | ${r.note ?? ""} |`,
  );
}
