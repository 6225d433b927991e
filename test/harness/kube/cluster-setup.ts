import { findHelm } from "./binaries.ts";
import { startControlPlane } from "./control-plane.ts";
import type { KubeAccess } from "./types.ts";

/** What global-setup needs for the `cluster` project. */
export interface ClusterForTests {
  access: KubeAccess;
  helmPath: string | undefined;
  stop(): Promise<void>;
}

/** Starts the control plane (building its binaries when missing) and finds helm. */
export async function startClusterForTests(): Promise<ClusterForTests> {
  const t0 = Date.now();
  const plane = await startControlPlane();
  process.stderr.write(
    `[harness] control plane ${plane.version} ready in ${Date.now() - t0} ms (etcd ${plane.timings.etcd} ms, kube-apiserver ${plane.timings.apiserver} ms, kube-controller-manager ${plane.timings.controllerManager} ms; ${plane.server}, logs in ${plane.dir})\n`,
  );
  const { kubeconfigPath, server, token, caData, version } = plane;
  return {
    access: { kubeconfigPath, server, token, caData, version },
    helmPath: findHelm(),
    stop: () => plane.stop(),
  };
}
