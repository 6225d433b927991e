/**
 * Python tools the client tests run (from PyPI, at exact versions): openapi-python-client to
 * generate a client from /openapi.json, and Schemathesis to test the API against it. They are
 * installed once into a virtual environment under the test cache directory
 * (CAUSEWAY_CACHE_DIR, default ~/.cache/causeway), which needs python3 with venv and pip.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const exec = promisify(execFile);

export const PYTHON_TOOLS = { "openapi-python-client": "0.29.1", schemathesis: "4.32.5" } as const;

export interface PythonTools {
  python: string;
  bin(name: "openapi-python-client" | "schemathesis"): string;
}

/** The venv with the tools, created or completed on first use. */
export async function ensurePythonTools(): Promise<PythonTools> {
  const cache = process.env.CAUSEWAY_CACHE_DIR ?? join(homedir(), ".cache", "causeway");
  const venv = join(cache, "pyclients");
  const bin = (name: string) => join(venv, "bin", name);
  const wanted = Object.entries(PYTHON_TOOLS).map(([name, version]) => `${name}==${version}`);
  await mkdir(cache, { recursive: true });
  if (!existsSync(bin("python"))) await exec("python3", ["-m", "venv", venv], { timeout: 120_000 });
  const { stdout } = await exec(bin("python"), ["-m", "pip", "freeze"], { timeout: 120_000 });
  const have = new Set(stdout.split("\n").map((l) => l.trim().toLowerCase()));
  if (!wanted.every((w) => have.has(w.toLowerCase())))
    await exec(bin("python"), ["-m", "pip", "install", "--quiet", ...wanted], { timeout: 600_000 });
  return { python: bin("python"), bin: (name) => bin(name) };
}
