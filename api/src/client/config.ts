/**
 * Where the command-line client finds the service and its key: flags, then CAUSEWAY_URL /
 * CAUSEWAY_API_KEY, then a profile of the config file ($CAUSEWAY_CONFIG, or
 * $XDG_CONFIG_HOME/causeway/config.json, or ~/.config/causeway/config.json):
 *
 *   {"default_profile": "lab", "profiles": {"lab": {"url": "https://…", "api_key": "cw_…"}}}
 */
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { z } from "zod";
import { CausewayError } from "./errors.ts";

const Profile = z.object({ url: z.url().optional(), api_key: z.string().min(1).optional() });
const ConfigFile = z.object({
  default_profile: z.string().min(1).optional(),
  profiles: z.record(z.string(), Profile).default({}),
});
type ConfigFile = z.infer<typeof ConfigFile>;

export interface Connection {
  url: string;
  apiKey: string;
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CAUSEWAY_CONFIG) return env.CAUSEWAY_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(homedir(), ".config");
  return join(base, "causeway", "config.json");
}

async function readConfigFile(path: string): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    return { profiles: {} };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CausewayError("invalid_config", `${path} is not JSON`, 0);
  }
  const parsed = ConfigFile.safeParse(json);
  if (!parsed.success)
    throw new CausewayError("invalid_config", `${path}: ${parsed.error.issues[0]?.message ?? "invalid"}`, 0);
  return parsed.data;
}

/** Resolves the service URL and API key, or says what is missing. */
export async function resolveConnection(
  flags: { url?: string; apiKey?: string; profile?: string },
  env: NodeJS.ProcessEnv = process.env,
): Promise<Connection> {
  const path = configPath(env);
  const file = await readConfigFile(path);
  const name = flags.profile ?? env.CAUSEWAY_PROFILE ?? file.default_profile ?? "default";
  const profile = file.profiles[name] ?? {};
  if ((flags.profile ?? env.CAUSEWAY_PROFILE) && !file.profiles[name])
    throw new CausewayError("invalid_config", `no profile "${name}" in ${path}`, 0);
  const url = flags.url ?? env.CAUSEWAY_URL ?? profile.url;
  const apiKey = flags.apiKey ?? env.CAUSEWAY_API_KEY ?? profile.api_key;
  if (!url)
    throw new CausewayError(
      "invalid_config",
      `no service URL: set CAUSEWAY_URL, --url, or a profile in ${path}`,
      0,
    );
  if (!apiKey)
    throw new CausewayError(
      "invalid_config",
      `no API key: set CAUSEWAY_API_KEY, --api-key, or a profile in ${path}`,
      0,
    );
  return { url, apiKey };
}

/** Writes (or updates) one profile; the file is readable by its owner only. */
export async function saveProfile(
  name: string,
  profile: z.infer<typeof Profile>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const path = configPath(env);
  const file = await readConfigFile(path);
  file.profiles[name] = { ...file.profiles[name], ...Profile.parse(profile) };
  file.default_profile ??= name;
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, JSON.stringify(file, null, 2) + "\n", { mode: 0o600 });
  await chmod(path, 0o600);
  return path;
}
