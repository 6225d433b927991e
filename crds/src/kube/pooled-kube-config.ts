/**
 * `@causeway/contract/kube`: a KubeConfig whose API clients and watches share one connection
 * pool, for the two components that talk to the API server (the operator and the API's
 * Kubernetes dispatcher). `@kubernetes/client-node` is an optional peer dependency: only they
 * import this file, and the runner image does not carry client-node.
 *
 * Why: client-node 2.0 builds a new undici Agent, with a connection pool of its own, in every
 * `applySecurityAuthentication` call, that is for every request and every watch. Nothing
 * reuses a connection: each request pays a TLS handshake, and its socket lingers until it
 * idles out. Under the 1,000-resource load the operator held 190–310 sockets to the API server
 * with 8 workers. The first request's dispatcher is kept and handed to every later one; the
 * per-request Agents built meanwhile never connect and are collected.
 *
 * Credentials carried in headers (service-account tokens, refreshed by client-node) still apply
 * per request. TLS client certificates are those of the first request: a kubeconfig whose exec
 * plugin rotates client certificates needs a new process (not the operator's in-cluster case).
 */
import { KubeConfig, type RequestContext } from "@kubernetes/client-node";

type Dispatcher = ReturnType<RequestContext["getDispatcher"]>;

export class PooledKubeConfig extends KubeConfig {
  #dispatcher: Dispatcher;

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    this.#dispatcher ??= context.getDispatcher();
    if (this.#dispatcher) context.setDispatcher(this.#dispatcher);
  }
}
