import { describe, expect, it } from "vitest";
import {
  WebhookAddressRefused,
  checkAddress,
  checkWebhookUrl,
  guardedLookup,
  ipv6Groups,
  isPrivateAddress,
} from "./address-guard.ts";

const strict = { allowPrivate: false, allowHosts: [] };

describe("webhook address guard", () => {
  it("refuses loopback, private, link-local, CGNAT, metadata and ULA addresses; admits public ones", () => {
    for (const a of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "fd00::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "64:ff9b::a00:1",
      "fd00:ec2::254",
    ])
      expect([a, isPrivateAddress(a)]).toEqual([a, true]);
    for (const a of ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
      expect([a, isPrivateAddress(a)]).toEqual([a, false]);
  });

  it("admits private addresses only when the administrator allows them", () => {
    expect(() => checkAddress(strict, "hooks.internal", "10.0.0.5")).toThrow(WebhookAddressRefused);
    expect(() =>
      checkAddress({ allowPrivate: true, allowHosts: [] }, "hooks.internal", "10.0.0.5"),
    ).not.toThrow();
    expect(() =>
      checkAddress({ allowPrivate: false, allowHosts: ["hooks.internal"] }, "Hooks.Internal", "10.0.0.5"),
    ).not.toThrow();
    expect(() =>
      checkAddress({ allowPrivate: false, allowHosts: ["10.0.0.0/24"] }, "x", "10.0.0.5"),
    ).not.toThrow();
    expect(() =>
      checkAddress({ allowPrivate: false, allowHosts: ["10.0.0.0/24"] }, "x", "10.0.1.5"),
    ).toThrow();
  });

  it("checks every address a URL's host resolves to", async () => {
    await expect(checkWebhookUrl(strict, new URL("http://localhost:9/x"))).rejects.toThrow(
      /non-public address/,
    );
    await expect(checkWebhookUrl(strict, new URL("http://[::1]/x"))).rejects.toThrow(WebhookAddressRefused);
    await expect(checkWebhookUrl(strict, new URL("https://93.184.216.34/x"))).resolves.toBeUndefined();
  });

  it("the connection's lookup refuses what resolves to a refused address (DNS rebinding)", async () => {
    const lookup = guardedLookup(strict);
    const result = await new Promise<{ err: Error | null; address: unknown }>((resolve) =>
      lookup("localhost", {}, (err, address) => resolve({ err, address })),
    );
    expect(result.err).toBeInstanceOf(WebhookAddressRefused);
    const open = guardedLookup({ allowPrivate: false, allowHosts: ["127.0.0.1"] });
    const ok = await new Promise<{ err: Error | null; address: unknown }>((resolve) =>
      open("127.0.0.1", {}, (err, address) => resolve({ err, address })),
    );
    expect(ok).toEqual({ err: null, address: "127.0.0.1" });
  });

  // Every IPv6 form that embeds or translates to a non-public address, from the attack run and
  // the special-purpose registry; each is refused as a URL host too.
  it.each([
    ["::ffff:0:127.0.0.1", "IPv4-translated (SIIT) loopback"],
    ["::ffff:0:7f00:1", "IPv4-translated, hex"],
    ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
    ["::ffff:a9fe:a9fe", "IPv4-mapped metadata, hex"],
    ["0:0:0:0:0:ffff:10.0.0.1", "IPv4-mapped, uncompressed"],
    ["::127.0.0.1", "IPv4-compatible loopback"],
    ["::7f00:1", "IPv4-compatible, hex"],
    ["::8.8.8.8", "IPv4-compatible (deprecated, never routable)"],
    ["2002:7f00:1::1", "6to4 of 127.0.0.1"],
    ["2002:a00:1::", "6to4 of 10.0.0.1"],
    ["2002:c0a8:101::1", "6to4 of 192.168.1.1"],
    ["64:ff9b::7f00:1", "NAT64 well-known of 127.0.0.1"],
    ["64:ff9b::10.0.0.1", "NAT64 well-known, dotted"],
    ["64:ff9b::a9fe:a9fe", "NAT64 well-known of the metadata address"],
    ["64:ff9b:1::7f00:1", "NAT64 local-use"],
    ["64:ff9b:1:abcd::8.8.8.8", "NAT64 local-use, public payload"],
    ["2001:0:7f00:1::", "Teredo with a loopback server"],
    ["2001:0:808:808::ffff:f5ff", "Teredo with a private (10.0.0.0) client"],
    ["fec0::1", "site-local"],
    ["feff::1", "site-local, top of the range"],
    ["fe80::1%eth0", "link-local with a zone"],
    ["febf::1", "link-local, top of the range"],
    ["fd12:3456::1", "ULA"],
    ["2001:db8::1", "documentation"],
    ["100::1", "discard-only"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["ff02::1", "multicast"],
  ])("refuses %s (%s)", async (address) => {
    expect(isPrivateAddress(address)).toBe(true);
    if (!address.includes("%"))
      await expect(checkWebhookUrl(strict, new URL(`http://[${address}]/hook`))).rejects.toThrow(
        WebhookAddressRefused,
      );
  });

  it.each([
    ["2606:4700:4700::1111", "public IPv6"],
    ["::ffff:8.8.8.8", "IPv4-mapped public"],
    ["64:ff9b::808:808", "NAT64 well-known of a public address"],
    ["2002:808:808::1", "6to4 of a public address"],
    ["2a00:1450:4001::200e", "public IPv6"],
  ])("admits %s (%s)", (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it("parses every textual IPv6 form to the same groups", () => {
    const loop = [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1];
    for (const a of ["::ffff:127.0.0.1", "::ffff:7f00:1", "0:0:0:0:0:ffff:7f00:0001", "0::FFFF:127.0.0.1"])
      expect([a, ipv6Groups(a)]).toEqual([a, loop]);
    expect(ipv6Groups("::")).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(ipv6Groups("1::")).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(ipv6Groups("::1.2.3.4")).toEqual([0, 0, 0, 0, 0, 0, 0x102, 0x304]);
    expect(ipv6Groups("127.0.0.1")).toBeNull();
  });
});
