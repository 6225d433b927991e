import { createServer } from "node:net";

/**
 * Returns a TCP port on 127.0.0.1 that was free a moment ago. The OS picks it (port 0), so two
 * parallel test runs do not collide; the tiny window before the service binds it is accepted.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      if (address === null || typeof address === "string") {
        server.close();
        reject(new Error("could not read the port of a probe socket"));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}
