/**
 * The server secret the per-job callback keys and the download-token key derive from: configured,
 * or (embedded mode) generated once into the data directory, so that keys and links outlive a
 * restart.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Config } from "../config.ts";

export async function resolveCallbackSecret(config: Config): Promise<string> {
  if (config.callbackSecret) return config.callbackSecret;
  await mkdir(config.dataDir, { recursive: true });
  const path = join(config.dataDir, "callback-secret");
  try {
    const existing = (await readFile(path, "utf8")).trim();
    if (existing.length >= 32) return existing;
  } catch {
    // first start
  }
  const secret = randomBytes(32).toString("hex");
  await writeFile(path, secret + "\n", { mode: 0o600 });
  return secret;
}
