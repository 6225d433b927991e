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

/** Loopback, private (RFC 1918, ULA), link-local, CGNAT, metadata and other non-public ranges. */
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  BLOCKED.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
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

function embeddedIpv4(address: string): string | null {
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1]!;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return null;
  const [hi, lo] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Whether an address is outside every public range. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return BLOCKED.check(address, "ipv4");
  if (family !== 6) return true;
  // IPv4-mapped and NAT64 addresses are checked as the IPv4 address they carry (node's BlockList
  // would otherwise match every IPv4 rule against them, or none).
  const v4 = embeddedIpv4(address);
  if (v4) return BLOCKED.check(v4, "ipv4");
  return BLOCKED.check(address, "ipv6");
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
