import { Socket } from "node:net";
import { join } from "node:path";
import { requireBinary } from "./binaries.ts";
import { freePort } from "./ports.ts";
import { makeTempDir, startProcess, waitFor } from "./proc.ts";

/** A throwaway Redis server without persistence. */
export interface RedisServer {
  /** e.g. redis://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

/** Sends one inline command and resolves with the first reply line (enough for PING). */
async function ask(port: number, command: string, host = "127.0.0.1"): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    socket.setTimeout(2_000, () => socket.destroy(new Error("redis did not answer")));
    socket.once("error", reject);
    socket.connect(port, host, () => socket.write(`${command}\r\n`));
    socket.once("data", (data) => {
      socket.destroy();
      resolve(data.toString("utf8").split("\r\n")[0] ?? "");
    });
  });
}

/** Starts redis-server on a free loopback port with RDB and AOF off, its files in a temp dir. */
export async function startRedis(
  options: {
    /** Listen here instead of 127.0.0.1 (a real node's pods reach the host at its bridge address). */
    address?: string;
  } = {},
): Promise<RedisServer> {
  const address = options.address ?? "127.0.0.1";
  const binary = requireBinary("redis-server", "sudo apt-get install -y redis-server", [
    "/usr/bin",
    "/usr/sbin",
    "/usr/local/bin",
  ]);
  const temp = await makeTempDir("redis");
  const port = await freePort();
  const proc = startProcess({
    name: "redis-server",
    command: binary,
    args: [
      "--port",
      String(port),
      "--bind",
      address,
      // An explicit bind is the access control here (a test server on a private address).
      "--protected-mode",
      "no",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      temp.path,
      "--daemonize",
      "no",
      "--logfile",
      "",
    ],
    logPath: join(temp.path, "redis.log"),
    cwd: temp.path,
  });
  await waitFor(
    "redis-server to answer PING",
    async () => ((await ask(port, "PING", address)) === "+PONG" ? true : undefined),
    {
      timeoutMs: 15_000,
      proc,
    },
  );
  return {
    url: `redis://${address}:${port}`,
    port,
    async stop(): Promise<void> {
      await proc.stop("SIGTERM", 10_000);
      await temp.remove();
    },
  };
}
