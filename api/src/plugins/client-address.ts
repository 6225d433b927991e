/**
 * The client address the edge limit keys on, in one canonical spelling. Behind a trusted proxy
 * Fastify (proxy-addr) takes the X-Forwarded-For entry as written, so one address written eight
 * ways had eight buckets and every non-IP value a fresh one.
 *
 * Parsed by Node's own parsers, not by hand: `net.SocketAddress` prints an IPv6 address in its
 * canonical text (RFC 5952: lower case, longest zero run compressed, zone dropped), and the
 * WHATWG URL host parser reads the inet_aton spellings of IPv4 (`3221226083`, `0xc0000263`,
 * `0300.0.2.0143`, `192.0x0.2.99`), which `net.isIP` refuses. IPv4-mapped IPv6 is the IPv4
 * address. Anything that is not an address falls back to the connecting (socket) address.
 */
import { isIP, SocketAddress } from "node:net";

const MAPPED_V4 = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;
/** Characters of the inet_aton spellings of IPv4 (decimal, 0x hex, 0-prefixed octal parts). */
const AATON = /^[0-9a-fx.]+$/i;

/** An IP address in its canonical spelling, or null when `text` is not an IP address. */
export function canonicalIp(text: string): string | null {
  let s = text.trim();
  // "[v6]:port" and "v4:port", which some proxies write.
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracketed) s = bracketed[1]!;
  else if (/^[^:]+:\d+$/.test(s)) s = s.slice(0, s.indexOf(":"));
  const family = isIP(s);
  if (family === 6) {
    const v6 = new SocketAddress({ address: s, family: "ipv6" }).address.toLowerCase();
    const mapped = MAPPED_V4.exec(v6.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, (_, v4: string) => v4Hex(v4)));
    if (mapped) {
      const hi = parseInt(mapped[1]!, 16);
      const lo = parseInt(mapped[2]!, 16);
      return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
    }
    return v6;
  }
  if (family === 4) return s;
  if (!AATON.test(s)) return null;
  let host: string;
  try {
    host = new URL(`http://${s}/`).hostname;
  } catch {
    return null;
  }
  return isIP(host) === 4 ? host : null;
}

/** "::ffff:a.b.c.d" as "::ffff:hhhh:hhhh", so one pattern matches both spellings. */
function v4Hex(v4: string): string {
  const [a, b, c, d] = v4.split(".").map(Number) as [number, number, number, number];
  return `::ffff:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/**
 * The canonical client address of a request: the address Fastify chose (X-Forwarded-For
 * behind a trusted proxy), else the socket's when that is not an IP address.
 */
export function clientAddress(request: {
  ip: string;
  socket: { remoteAddress?: string | undefined };
}): string {
  return (
    canonicalIp(request.ip) ??
    canonicalIp(request.socket.remoteAddress ?? "") ??
    request.socket.remoteAddress ??
    "unknown"
  );
}
