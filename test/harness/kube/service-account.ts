import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { join } from "node:path";
import { writeKubeconfig } from "./kubeconfig.ts";
import type { KubeAccess } from "./types.ts";

/** A kubeconfig that authenticates as a ServiceAccount. */
export interface ServiceAccountAccess {
  kubeconfigPath: string;
  token: string;
  /** The username the API server sees: system:serviceaccount:<namespace>:<name>. */
  username: string;
}

/** Options of {@link serviceAccountKubeconfig}. */
export interface ServiceAccountKubeconfigOptions {
  namespace: string;
  name: string;
  /** Where to write the kubeconfig; default: next to the admin kubeconfig. */
  path?: string;
  /** Token lifetime; the API server enforces at least 600 s. Default 3600. */
  expirationSeconds?: number;
  /** Create the ServiceAccount when it does not exist (default false: the chart should make it). */
  create?: boolean;
}

/** A KubeConfig loaded from `access.kubeconfigPath` (admin by default). */
export function loadKubeConfig(access: Pick<KubeAccess, "kubeconfigPath">): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(access.kubeconfigPath);
  return kc;
}

function isNotFound(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    "code" in error &&
    (error as { code: unknown }).code === 404
  );
}

/**
 * Issues a token for a ServiceAccount through the TokenRequest API (served by every version this
 * harness runs: v1.20 and later, since the API server has a signing key) and writes a kubeconfig for
 * it, so that a test can run the operator or API with exactly the RBAC the chart grants.
 */
export async function serviceAccountKubeconfig(
  admin: KubeAccess,
  options: ServiceAccountKubeconfigOptions,
): Promise<ServiceAccountAccess> {
  const core = loadKubeConfig(admin).makeApiClient(CoreV1Api);
  const { namespace, name } = options;
  if (options.create) {
    try {
      await core.readNamespacedServiceAccount({ name, namespace });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name, namespace } } });
    }
  }
  const request = await core.createNamespacedServiceAccountToken({
    name,
    namespace,
    body: { spec: { audiences: [], expirationSeconds: options.expirationSeconds ?? 3600 } },
  });
  const token = request.status?.token;
  if (!token) throw new Error(`TokenRequest for ${namespace}/${name} returned no token`);
  const kubeconfigPath =
    options.path ?? join(admin.kubeconfigPath, "..", `sa-${namespace}-${name}.kubeconfig`);
  await writeKubeconfig(kubeconfigPath, {
    server: admin.server,
    token,
    caData: admin.caData,
    user: `${namespace}-${name}`,
    namespace,
  });
  return { kubeconfigPath, token, username: `system:serviceaccount:${namespace}:${name}` };
}
