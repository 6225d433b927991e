/**
 * A load client in its own process, so the API's event loop (in the bench process) is not
 * shared with the clients parsing its answers: `node test/bench/load-client.ts <url> <concurrency>
 * <seconds> <interval ms> [header: value]...` runs `concurrency` loops of GET (each waiting
 * `interval` between requests) and prints {requests, p50ms, p95ms, p99ms, maxms, non2xx} as JSON,
 * at the end or when stopped early with SIGTERM.
 */
const [url, concurrency = "1", seconds = "5", interval = "0", ...headerArgs] = process.argv.slice(2);
if (!url)
  throw new Error("usage: load-client.ts <url> <concurrency> <seconds> <interval ms> [header: value]...");
const headers: Record<string, string> = {};
for (const h of headerArgs) {
  const at = h.indexOf(":");
  headers[h.slice(0, at).trim()] = h.slice(at + 1).trim();
}
let until = performance.now() + Number(seconds) * 1000;
process.on("SIGTERM", () => (until = 0));
const times: number[] = [];
let non2xx = 0;
async function loop(): Promise<void> {
  while (performance.now() < until) {
    const t0 = performance.now();
    const res = await fetch(url!, { headers });
    await res.arrayBuffer();
    times.push(performance.now() - t0);
    if (res.status < 200 || res.status >= 300) non2xx++;
    if (Number(interval) > 0) await new Promise((r) => setTimeout(r, Number(interval)));
  }
}
await Promise.all(Array.from({ length: Number(concurrency) }, () => loop()));
times.sort((a, b) => a - b);
const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? NaN;
process.stdout.write(
  JSON.stringify({
    requests: times.length,
    p50ms: at(0.5),
    p95ms: at(0.95),
    p99ms: at(0.99),
    maxms: at(1),
    non2xx,
  }) + "\n",
);
