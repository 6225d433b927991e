import { writeFile } from "node:fs/promises";

/** Options of {@link writeKubeconfig}. */
export interface KubeconfigOptions {
  server: string;
  token: string;
  /** PEM of the CA that signed (here: is) the server certificate. */
  caData: string;
  user: string;
  namespace?: string;
}

/**
 * Writes a kubeconfig with one cluster, user and context. JSON is valid YAML, so kubectl, helm and
 * @kubernetes/client-node all read it; the file is mode 0600 because it holds a bearer token.
 */
export async function writeKubeconfig(path: string, options: KubeconfigOptions): Promise<void> {
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "causeway-test",
        cluster: {
          server: options.server,
          "certificate-authority-data": Buffer.from(options.caData).toString("base64"),
        },
      },
    ],
    users: [{ name: options.user, user: { token: options.token } }],
    contexts: [
      {
        name: options.user,
        context: {
          cluster: "causeway-test",
          user: options.user,
          ...(options.namespace ? { namespace: options.namespace } : {}),
        },
      },
    ],
    "current-context": options.user,
    preferences: {},
  };
  await writeFile(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
}
