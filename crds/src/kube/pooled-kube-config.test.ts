import { HttpMethod, KubeConfig, RequestContext } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { PooledKubeConfig } from "./pooled-kube-config.ts";

// A self-signed CA is not needed: only the TLS options' presence makes client-node build an Agent.
const options = {
  clusters: [{ name: "c", server: "https://127.0.0.1:6443", caData: Buffer.from("ca").toString("base64") }],
  users: [{ name: "u", token: "t0ken" }],
  contexts: [{ name: "x", cluster: "c", user: "u" }],
  currentContext: "x",
};

async function dispatchers(kc: KubeConfig): Promise<unknown[]> {
  const contexts = [1, 2, 3].map(() => new RequestContext("https://127.0.0.1:6443/api", HttpMethod.GET));
  for (const ctx of contexts) await kc.applySecurityAuthentication(ctx);
  expect(contexts.map((c) => c.getHeaders().Authorization)).toEqual(Array(3).fill("Bearer t0ken"));
  return contexts.map((c) => c.getDispatcher());
}

describe("PooledKubeConfig", () => {
  it("hands every request the same connection pool, with its credentials applied per request", async () => {
    const pooled = new PooledKubeConfig();
    pooled.loadFromOptions(options);
    const [first, ...rest] = await dispatchers(pooled);
    expect(first).toBeDefined();
    for (const d of rest) expect(d).toBe(first);
  });

  it("is needed: client-node builds a new pool per request (remove the class once it does not)", async () => {
    const plain = new KubeConfig();
    plain.loadFromOptions(options);
    const all = await dispatchers(plain);
    expect(new Set(all).size).toBe(3);
  });
});
