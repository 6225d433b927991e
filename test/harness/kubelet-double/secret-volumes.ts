import type { CoreV1Api, V1Container, V1KeyToPath, V1Pod } from "@kubernetes/client-node";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ContainerConfigError } from "./env.ts";

/**
 * Writes the container's Secret volumes (secret.items, or every key) as files under `dir`, as a
 * kubelet would mount them, and returns mount path → local folder. The process runs on the host, so
 * the caller rewrites paths under a mount path (see {@link localPath}).
 */
export async function materializeSecretVolumes(
  core: CoreV1Api,
  pod: V1Pod,
  container: V1Container,
  dir: string,
): Promise<Map<string, string>> {
  const namespace = pod.metadata?.namespace ?? "default";
  const mounts = new Map<string, string>();
  for (const [index, mount] of (container.volumeMounts ?? []).entries()) {
    const source = pod.spec?.volumes?.find((v) => v.name === mount.name)?.secret;
    if (!source?.secretName) continue;
    let data: Record<string, string>;
    try {
      const secret = await core.readNamespacedSecret({ name: source.secretName, namespace });
      data = Object.fromEntries(
        Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]),
      );
    } catch (error) {
      if (source.optional) continue;
      throw new ContainerConfigError(`secret "${source.secretName}" not found: ${String(error)}`);
    }
    const local = join(dir, `volume-${index}`);
    await mkdir(local, { recursive: true });
    const items: V1KeyToPath[] = source.items ?? Object.keys(data).map((key) => ({ key, path: key }));
    for (const item of items) {
      const value = data[item.key];
      if (value === undefined)
        throw new ContainerConfigError(`secret "${source.secretName}" has no key ${item.key}`);
      await writeFile(join(local, item.path), value, { mode: item.mode ?? source.defaultMode ?? 0o644 });
    }
    mounts.set(mount.mountPath.replace(/\/+$/, ""), local);
  }
  return mounts;
}

/** `value` with a leading mount path replaced by its local folder (values elsewhere stay as they are). */
export function localPath(value: string, mounts: ReadonlyMap<string, string>): string {
  for (const [mountPath, local] of mounts) {
    if (value === mountPath || value.startsWith(`${mountPath}/`))
      return local + value.slice(mountPath.length);
  }
  return value;
}
