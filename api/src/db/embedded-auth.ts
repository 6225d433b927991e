/**
 * A password in front of the embedded database. PGlite answers every connection as `postgres`
 * without asking for anything, so it listens on a Unix socket in a private (0700) directory and
 * this loopback TCP listener is the only way in: it takes the client's startup message, asks
 * for a password (AuthenticationCleartextPassword, PostgreSQL protocol 3.0: the client is local,
 * the bytes never leave the host), compares it in constant time with the server's random one
 * (kept in `<data dir>/pglite.json`, mode 0600) and only then joins the client to PGlite, which
 * answers the startup itself. A wrong password gets the error PostgreSQL sends (28P01).
 * Hand-written: no maintained library proxies the PostgreSQL handshake, and this is the
 * startup phase only (a few dozen lines); after it the bytes are piped untouched.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { connect, createServer, type Server, type Socket } from "node:net";

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;

export interface PasswordFront {
  host: string;
  port: number;
  close(): Promise<void>;
}

const digest = (s: string | Buffer) => createHash("sha256").update(s).digest();

/** Reads exactly `n` bytes (resolves null when the socket ends first). */
function reader(socket: Socket): (n: number) => Promise<Buffer | null> {
  let buffered = Buffer.alloc(0);
  let ended = false;
  let wake: (() => void) | null = null;
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    wake?.();
  };
  socket.on("data", onData);
  socket.once("close", () => {
    ended = true;
    wake?.();
  });
  const read = async (n: number): Promise<Buffer | null> => {
    while (buffered.length < n) {
      if (ended) return null;
      await new Promise<void>((r) => (wake = r));
      wake = null;
    }
    const out = buffered.subarray(0, n);
    buffered = buffered.subarray(n);
    return out;
  };
  // Stops reading for the handshake: the rest is piped.
  (read as unknown as { stop: () => Buffer }).stop = () => {
    socket.off("data", onData);
    return buffered;
  };
  return read;
}

function errorResponse(code: string, message: string): Buffer {
  const fields = Buffer.concat([Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0`), Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head.write("E", 0);
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}

async function handshake(client: Socket, password: string, upstreamPath: string): Promise<void> {
  const read = reader(client);
  let startup: Buffer;
  for (;;) {
    const head = await read(8);
    if (!head) return void client.destroy();
    const length = head.readInt32BE(0);
    const code = head.readInt32BE(4);
    if (length === 8 && (code === SSL_REQUEST || code === GSS_REQUEST)) {
      client.write("N"); // no encryption on loopback; the client goes on in the clear
      continue;
    }
    if (code === CANCEL_REQUEST || code !== PROTOCOL_3 || length < 8 || length > 10_000)
      return void client.destroy();
    const rest = await read(length - 8);
    if (!rest) return void client.destroy();
    startup = Buffer.concat([head, rest]);
    break;
  }
  // AuthenticationCleartextPassword: 'R', length 8, code 3.
  client.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3]));
  const head = await read(5);
  if (!head || head[0] !== 0x70 /* 'p' */) return void client.destroy();
  const length = head.readInt32BE(1);
  if (length < 5 || length > 1024) return void client.destroy();
  const body = await read(length - 4);
  if (!body) return void client.destroy();
  const given = body.subarray(0, body.indexOf(0) >= 0 ? body.indexOf(0) : body.length);
  if (!timingSafeEqual(digest(given), digest(password))) {
    client.end(errorResponse("28P01", 'password authentication failed for user "postgres"'));
    return;
  }
  const leftover = (read as unknown as { stop: () => Buffer }).stop();
  const upstream = connect(upstreamPath);
  upstream.once("error", () => client.destroy());
  client.once("error", () => upstream.destroy());
  upstream.once("close", () => client.destroy());
  client.once("close", () => upstream.destroy());
  upstream.write(startup);
  if (leftover.length > 0) upstream.write(leftover);
  client.pipe(upstream);
  upstream.pipe(client);
}

/** Listens on 127.0.0.1 (a free port) and joins authenticated clients to `upstreamPath`. */
export async function startPasswordFront(options: {
  upstreamPath: string;
  password: string;
}): Promise<PasswordFront> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.once("close", () => sockets.delete(client));
    client.once("error", () => client.destroy());
    void handshake(client, options.password, options.upstreamPath).catch(() => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address() as { address: string; port: number };
  return {
    host: address.address,
    port: address.port,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
