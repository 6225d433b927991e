/** Test support: reading values out of Prometheus exposition text. */

/** The value of one exposition series, e.g. `name{a="b"}`; 0 when absent. */
export function sample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(series + " "));
  return line ? Number(line.slice(series.length + 1)) : 0;
}
