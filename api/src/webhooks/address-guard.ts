/**
 * SSRF protection of completion webhooks: a webhook may only reach public addresses, unless
 * the administrator allows private ones (CAUSEWAY_WEBHOOK_ALLOW_PRIVATE) or names hosts and
 * networks (CAUSEWAY_WEBHOOK_ALLOW_HOSTS). The host is resolved and every address checked at
 * submission, and again at delivery through the connection's own `lookup`, so the address that
 * is checked is the address that is connected to (a DNS answer changed in between — rebinding —
 * is refused, not followed).
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * Loopback, private (RFC 1918, ULA), link-local, CGNAT, metadata, documentation, benchmark,
 * multicast and reserved ranges (IANA special-purpose registries).
 */
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  BLOCKED.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  // NAT64 local-use prefix (RFC 8215): translated by a local gateway, so never public.
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001:2::", 48],
  ["2001:10::", 28],
  ["2001:20::", 28],
  ["2001:db8::", 32],
  ["3fff::", 20],
  ["5f00::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  // Site-local (deprecated by RFC 3879, still routed inside some networks).
  ["fec0::", 10],
  ["ff00::", 8],
  ["fd00:ec2::254", 128],
] as const)
  BLOCKED.addSubnet(net, prefix, "ipv6");

export interface WebhookPolicy {
  allowPrivate: boolean;
  /** Host names (exact, case-insensitive), addresses or CIDRs allowed even when private. */
  allowHosts: string[];
}

export class WebhookAddressRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookAddressRefused";
  }
}

function allowList(policy: WebhookPolicy): { names: Set<string>; nets: BlockList } {
  const names = new Set<string>();
  const nets = new BlockList();
  for (const entry of policy.allowHosts) {
    const [addr, bits] = entry.split("/");
    const family = isIP(addr ?? "");
    if (family === 0) names.add(entry.toLowerCase());
    else if (bits === undefined) nets.addAddress(addr!, family === 4 ? "ipv4" : "ipv6");
    else nets.addSubnet(addr!, Number(bits), family === 4 ? "ipv4" : "ipv6");
  }
  return { names, nets };
}

/**
 * The eight 16-bit groups of an IPv6 address in any textual form (compressed, with a trailing
 * dotted IPv4 part, with a zone), or null. Hand-written: node:net validates and BlockList
 * matches prefixes, but neither exposes the groups, which the embedded-IPv4 forms need.
 */
export function ipv6Groups(address: string): number[] | null {
  const text = address.replace(/%.*$/, "");
  if (isIP(text) !== 6) return null;
  let body = text;
  const tail: number[] = [];
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(2).map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    // "::ffff:" → "::ffff"; a trailing "::" stays the compression.
    body = dotted[1]!.endsWith("::") ? dotted[1]! : dotted[1]!.slice(0, -1);
  }
  const halves = body.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((h) => parseInt(h, 16)));
  const head = parse(halves[0]!);
  const rest = halves.length > 1 ? parse(halves[1]!) : [];
  const missing = 8 - tail.length - head.length - rest.length;
  const groups = [
    ...head,
    ...(halves.length > 1 ? new Array<number>(missing).fill(0) : []),
    ...rest,
    ...tail,
  ];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff)
    ? groups
    : null;
}

const v4 = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * The IPv4 addresses an IPv6 address carries or translates to: IPv4-mapped (::ffff:0:0/96),
 * IPv4-translated (::ffff:0:0:0/96), IPv4-compatible (::/96), NAT64 well-known (64:ff9b::/96),
 * 6to4 (2002::/16) and Teredo (2001::/32: the server and the obfuscated client address).
 */
export function embeddedIpv4(groups: readonly number[]): string[] {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const zeroTo = (n: number) => groups.slice(0, n).every((g) => g === 0);
  if (zeroTo(5) && g5 === 0xffff) return [v4(g6, g7)];
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return [v4(g6, g7)];
  if (zeroTo(6)) return [v4(g6, g7)];
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return [v4(g6, g7)];
  if (g0 === 0x2002) return [v4(g1, g2)];
  if (g0 === 0x2001 && g1 === 0) return [v4(g2, g3), v4(~g6 & 0xffff, ~g7 & 0xffff)];
  return [];
}

/** Whether an address is outside every public range. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return BLOCKED.check(address, "ipv4");
  const groups = ipv6Groups(address);
  if (!groups) return true;
  // Forms that embed or translate to an IPv4 address are refused when that address is.
  if (embeddedIpv4(groups).some((a) => BLOCKED.check(a, "ipv4"))) return true;
  // ::/96 (unspecified, loopback, the deprecated IPv4-compatible form) is never routable. These
  // prefixes are matched here, not in BLOCKED: node's BlockList matches an IPv4 address against
  // IPv6 rules as its IPv4-mapped form, so ::ffff:0:0/96 there would block every IPv4 address.
  if (groups.slice(0, 6).every((g) => g === 0)) return true;
  const canonical = groups.map((g) => g.toString(16)).join(":");
  return BLOCKED.check(canonical, "ipv6");
}

/** Throws WebhookAddressRefused unless `host` resolving to `address` is allowed. */
export function checkAddress(policy: WebhookPolicy, host: string, address: string): void {
  if (policy.allowPrivate || !isPrivateAddress(address)) return;
  const allowed = allowList(policy);
  if (allowed.names.has(host.toLowerCase())) return;
  if (allowed.nets.check(address, isIP(address) === 4 ? "ipv4" : "ipv6")) return;
  throw new WebhookAddressRefused(
    `callback_url resolves to a non-public address (${address}); webhooks may only reach public addresses`,
  );
}

const bareHost = (hostname: string): string => hostname.replace(/^\[|\]$/g, "");

/** Resolves the URL's host and checks every address (submission time). */
export async function checkWebhookUrl(policy: WebhookPolicy, url: URL): Promise<void> {
  const host = bareHost(url.hostname);
  let addresses: { address: string }[];
  try {
    addresses = isIP(host) ? [{ address: host }] : await dnsLookup(host, { all: true });
  } catch {
    throw new WebhookAddressRefused("callback_url: the host name does not resolve");
  }
  for (const { address } of addresses) checkAddress(policy, host, address);
}

/** A `lookup` for http.request that resolves and refuses disallowed addresses (delivery time). */
export function guardedLookup(policy: WebhookPolicy): LookupFunction {
  return (hostname, options, callback) => {
    const host = bareHost(hostname);
    const done = (address: string, family: number) => {
      try {
        checkAddress(policy, host, address);
      } catch (err) {
        callback(err as NodeJS.ErrnoException, "", 0);
        return;
      }
      if (options.all) callback(null, [{ address, family }], family);
      else callback(null, address, family);
    };
    if (isIP(host)) {
      done(host, isIP(host));
      return;
    }
    dnsLookup(host, { family: options.family ?? 0 }).then(
      (r) => done(r.address, r.family),
      (err: NodeJS.ErrnoException) => callback(err, "", 0),
    );
  };
}
