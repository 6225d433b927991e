/**
 * The bench's reference: bare Fastify in the same runtime, in a process of its own (so the
 * API's leftover work cannot slow it), with a hello-world route and one streaming a file as
 * JSON, and /stall: its longest event-loop delay since the previous /stall (a machine's
 * scheduling delays show here as much as in the API). Prints its port on standard output.
 * Usage: node reference-server.ts FILE
 */
import { createReadStream } from "node:fs";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import Fastify from "fastify";

const file = process.argv[2]!;
const app = Fastify({ logger: false });
const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();
app.get("/stall", async () => {
  const max_ms = delay.max / 1e6;
  delay.reset();
  return { max_ms };
});
app.get("/hello", async () => ({ hello: "world" }));
app.get("/file", (_request, reply) => {
  reply.type("application/json; charset=utf-8").send(createReadStream(file));
});
await app.listen({ port: 0, host: "127.0.0.1" });
process.stdout.write(`${(app.server.address() as AddressInfo).port}\n`);
process.on("SIGTERM", () => void app.close().then(() => process.exit(0)));
