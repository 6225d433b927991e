import { describe, expect, it } from "vitest";
import {
  WebhookAddressRefused,
  checkAddress,
  checkWebhookUrl,
  guardedLookup,
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
});
