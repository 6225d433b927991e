/**
 * A real HTTP endpoint standing in for the API's callback route in tests of the callback
 * senders: it records every request and answers each with the next scripted status.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the endpoint received it. */
export interface ReceivedCallback {
  url: string;
  body: string;
  timestamp: number;
  signature: string;
  headers: IncomingHttpHeaders;
}

export interface CallbackEndpoint {
  /** `http://127.0.0.1:<port>` without a trailing slash. */
  base: string;
  received: ReceivedCallback[];
  close(): Promise<void>;
}

/** Answers each request with the next of `statuses` (204 once they run out; "hang" never answers). */
export async function callbackEndpoint(statuses: (number | "hang")[] = []): Promise<CallbackEndpoint> {
  const received: ReceivedCallback[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      received.push({
        url: req.url ?? "",
        body,
        timestamp: Number(req.headers["x-causeway-timestamp"]),
        signature: String(req.headers["x-causeway-signature"]),
        headers: req.headers,
      });
      const status = statuses.shift() ?? 204;
      if (status === "hang") return;
      res.statusCode = status;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
