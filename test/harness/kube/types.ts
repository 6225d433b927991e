/** How a test reaches the control plane as the static-token admin (system:masters). */
export interface KubeAccess {
  /** Path of a kubeconfig file (current context = admin). */
  kubeconfigPath: string;
  /** e.g. https://127.0.0.1:PORT */
  server: string;
  /** Bearer token of the admin user. */
  token: string;
  /** PEM of the API server's serving certificate (self-signed), to verify TLS. */
  caData: string;
  /** The Kubernetes version the API server reports, e.g. v1.36.4. */
  version: string;
}
