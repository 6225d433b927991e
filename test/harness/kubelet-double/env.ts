import type { CoreV1Api, V1Container, V1Pod } from "@kubernetes/client-node";

/** Reads the value a fieldRef points at (the subset of the downward API tests need). */
function fieldValue(pod: V1Pod, fieldPath: string): string {
  const labelOrAnnotation = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
  if (labelOrAnnotation) {
    const map = labelOrAnnotation[1] === "labels" ? pod.metadata?.labels : pod.metadata?.annotations;
    return map?.[labelOrAnnotation[2] ?? ""] ?? "";
  }
  const simple: Record<string, string | undefined> = {
    "metadata.name": pod.metadata?.name,
    "metadata.namespace": pod.metadata?.namespace,
    "metadata.uid": pod.metadata?.uid,
    "spec.nodeName": pod.spec?.nodeName,
    "spec.serviceAccountName": pod.spec?.serviceAccountName,
    "status.podIP": "127.0.0.1",
    "status.hostIP": "127.0.0.1",
  };
  if (!(fieldPath in simple)) throw new Error(`kubelet double: fieldRef ${fieldPath} is not supported`);
  return simple[fieldPath] ?? "";
}

/** Thrown when a referenced Secret or ConfigMap (key) is missing: the kubelet's CreateContainerConfigError. */
export class ContainerConfigError extends Error {
  override name = "ContainerConfigError";
}

/**
 * Expands `$(VAR)` references the way the kubelet does for env values, command and args: a
 * reference to a defined variable is replaced, `$$(VAR)` yields a literal `$(VAR)`, anything else stays.
 */
export function expandReferences(text: string, env: Readonly<Record<string, string>>): string {
  return text.replace(
    /\$\$\(|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g,
    (match: string, name: string | undefined) => {
      if (name === undefined) return "$(";
      return Object.hasOwn(env, name) ? (env[name] ?? "") : match;
    },
  );
}

/**
 * Builds the container's environment from `env` and `envFrom`, resolving Secret and ConfigMap
 * references through the API (as the kubelet would), in the kubelet's order: envFrom first, then env.
 */
export async function resolveContainerEnv(
  core: CoreV1Api,
  pod: V1Pod,
  container: V1Container,
): Promise<Record<string, string>> {
  const namespace = pod.metadata?.namespace ?? "default";
  const secrets = new Map<string, Record<string, string>>();
  const configMaps = new Map<string, Record<string, string>>();
  const readSecret = async (name: string, optional: boolean): Promise<Record<string, string> | undefined> => {
    if (!secrets.has(name)) {
      try {
        const secret = await core.readNamespacedSecret({ name, namespace });
        const decoded = Object.fromEntries(
          Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]),
        );
        secrets.set(name, { ...decoded, ...(secret.stringData ?? {}) });
      } catch (error) {
        if (optional) return undefined;
        throw new ContainerConfigError(`secret "${name}" not found: ${String(error)}`);
      }
    }
    return secrets.get(name);
  };
  const readConfigMap = async (
    name: string,
    optional: boolean,
  ): Promise<Record<string, string> | undefined> => {
    if (!configMaps.has(name)) {
      try {
        configMaps.set(name, (await core.readNamespacedConfigMap({ name, namespace })).data ?? {});
      } catch (error) {
        if (optional) return undefined;
        throw new ContainerConfigError(`configmap "${name}" not found: ${String(error)}`);
      }
    }
    return configMaps.get(name);
  };

  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    const prefix = source.prefix ?? "";
    const values = source.secretRef
      ? await readSecret(source.secretRef.name ?? "", source.secretRef.optional === true)
      : source.configMapRef
        ? await readConfigMap(source.configMapRef.name ?? "", source.configMapRef.optional === true)
        : undefined;
    for (const [key, value] of Object.entries(values ?? {})) env[prefix + key] = value;
  }
  for (const variable of container.env ?? []) {
    const from = variable.valueFrom;
    if (!from) {
      env[variable.name] = expandReferences(variable.value ?? "", env);
    } else if (from.secretKeyRef) {
      const ref = from.secretKeyRef;
      const value = (await readSecret(ref.name ?? "", ref.optional === true))?.[ref.key];
      if (value === undefined && ref.optional !== true)
        throw new ContainerConfigError(
          `couldn't find key ${ref.key} in Secret ${namespace}/${ref.name ?? ""}`,
        );
      if (value !== undefined) env[variable.name] = value;
    } else if (from.configMapKeyRef) {
      const ref = from.configMapKeyRef;
      const value = (await readConfigMap(ref.name ?? "", ref.optional === true))?.[ref.key];
      if (value === undefined && ref.optional !== true)
        throw new ContainerConfigError(
          `couldn't find key ${ref.key} in ConfigMap ${namespace}/${ref.name ?? ""}`,
        );
      if (value !== undefined) env[variable.name] = value;
    } else if (from.fieldRef) {
      env[variable.name] = fieldValue(pod, from.fieldRef.fieldPath);
    } else {
      // resourceFieldRef would need the node's allocatable resources; no test needs it yet.
      throw new Error(`kubelet double: env ${variable.name} uses an unsupported valueFrom`);
    }
  }
  return env;
}
