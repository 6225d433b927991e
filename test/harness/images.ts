import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { z } from "zod";
import { requireBinary } from "./binaries.ts";
import { makeTempDir } from "./proc.ts";
import { repoRoot } from "./repo.ts";

const run = promisify(execFile);

/** The three images `npm run images` builds. */
export const IMAGE_NAMES = ["runner", "api", "operator"] as const;
export type ImageName = (typeof IMAGE_NAMES)[number];

/** One entry of dist/images/images.json, as charts/images/build.sh writes it. */
export const BuiltImage = z.object({
  name: z.enum(IMAGE_NAMES),
  /** e.g. causeway/runner:0.1.0: the name under which containerd knows it once imported. */
  reference: z.string().min(1),
  digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  revision: z.string(),
  compressed_bytes: z.number().int().positive(),
  layers: z.number().int().positive(),
  tar_bytes: z.number().int().positive(),
});
export type BuiltImage = z.infer<typeof BuiltImage> & {
  /** The OCI image layout directory. */
  layout: string;
  /** The layout as a tar (what `ctr images import` takes). */
  tar: string;
};

/** Where the images are: $CAUSEWAY_IMAGES_DIR or dist/images. */
export function imagesDir(): string {
  return process.env.CAUSEWAY_IMAGES_DIR ?? join(repoRoot, "dist", "images");
}

async function readImages(dir: string): Promise<Map<ImageName, BuiltImage> | undefined> {
  const index = join(dir, "images.json");
  if (!existsSync(index)) return undefined;
  const entries = z.array(BuiltImage).parse(JSON.parse(await readFile(index, "utf8")));
  const images = new Map<ImageName, BuiltImage>();
  for (const entry of entries) {
    const image = { ...entry, layout: join(dir, `${entry.name}.oci`), tar: join(dir, `${entry.name}.tar`) };
    if (existsSync(image.layout) && existsSync(image.tar)) images.set(entry.name, image);
  }
  return IMAGE_NAMES.every((n) => images.has(n)) ? images : undefined;
}

/**
 * The built images, building them first with `charts/images/build.sh` when any is missing (a cold
 * build takes minutes; .ci/run builds them before the tests). Images already there are used as they
 * are, even when the sources changed since: run `npm run images` to refresh them.
 */
export async function ensureImages(): Promise<Map<ImageName, BuiltImage>> {
  const dir = imagesDir();
  const found = await readImages(dir);
  if (found) return found;
  process.stderr.write(`[harness] images missing in ${dir}: running charts/images/build.sh\n`);
  await new Promise<void>((resolve, reject) => {
    const child = spawn("bash", [join(repoRoot, "charts/images/build.sh"), "--out", dir], {
      stdio: ["ignore", "inherit", "inherit"],
    });
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`charts/images/build.sh failed with exit code ${String(code)}`)),
    );
  });
  const built = await readImages(dir);
  if (!built) throw new Error(`charts/images/build.sh finished but ${dir}/images.json is incomplete`);
  return built;
}

/** The parts of an OCI runtime config.json that {@link runInRunc} changes. */
const RuntimeConfig = z.looseObject({
  process: z.looseObject({ args: z.array(z.string()), terminal: z.boolean().optional() }),
  linux: z.looseObject({ resources: z.looseObject({}).optional() }),
});

/** What a container run under runc gave. */
export interface RuncResult {
  exitCode: number;
  output: string;
}

/** An image unpacked into an OCI runtime bundle, to run commands in it under runc. */
export interface RuncBundle {
  /** Runs `args` as the image's user in its working directory and waits for the end. */
  run(
    args: readonly string[],
    options?: { memoryLimitBytes?: number; timeoutMs?: number },
  ): Promise<RuncResult>;
  remove(): Promise<void>;
}

/**
 * Unpacks `image` (umoci) into a bundle that runc runs the way a container runtime would: the
 * image's user, working directory, environment and a read-only view of nothing but its layers.
 * Unpacking takes a while (the dependency layer is large): run several commands in one bundle.
 */
export async function unpackForRunc(image: BuiltImage): Promise<RuncBundle> {
  const umoci = requireBinary("umoci", "apt-get install umoci");
  const runc = requireBinary("runc", "apt-get install runc", ["/usr/sbin", "/sbin"]);
  const temp = await makeTempDir("runc");
  const bundle = join(temp.path, "bundle");
  const tag = image.reference.split(":").at(-1) ?? "";
  try {
    await run(umoci, ["unpack", "--image", `${image.layout}:${tag}`, bundle], {
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    await temp.remove();
    throw error;
  }
  const configPath = join(bundle, "config.json");
  const original = await readFile(configPath, "utf8");
  let runs = 0;
  return {
    async run(args, options = {}): Promise<RuncResult> {
      const config = RuntimeConfig.parse(JSON.parse(original));
      config.process.args = [...args];
      config.process.terminal = false;
      if (options.memoryLimitBytes !== undefined) {
        // Swap equal to the limit: the container cannot spill into swap, as under a kubelet.
        config.linux.resources = {
          ...config.linux.resources,
          memory: { limit: options.memoryLimitBytes, swap: options.memoryLimitBytes },
        };
      }
      await writeFile(configPath, JSON.stringify(config));
      runs += 1;
      const id = `causeway-${temp.path.split("-").at(-1) ?? "test"}-${runs}`;
      return new Promise<RuncResult>((resolve, reject) => {
        const child = spawn(runc, ["--root", join(temp.path, "state"), "run", "--bundle", bundle, id], {
          stdio: ["ignore", "pipe", "pipe"],
        });
        let output = "";
        child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
        child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
        const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
        child.once("error", reject);
        child.once("exit", (code, signal) => {
          clearTimeout(timer);
          resolve({ exitCode: code ?? (signal ? 128 : -1), output });
        });
      });
    },
    remove: () => temp.remove(),
  };
}

/** The image's OCI config (labels, user, command) from its layout. */
export async function imageConfig(image: BuiltImage): Promise<ImageConfig> {
  const blob = (digest: string): string =>
    join(image.layout, "blobs", "sha256", digest.replace(/^sha256:/, ""));
  const manifest = z
    .object({ config: z.object({ digest: z.string() }) })
    .parse(JSON.parse(await readFile(blob(image.digest), "utf8")));
  return ImageConfig.parse(JSON.parse(await readFile(blob(manifest.config.digest), "utf8")));
}

export const ImageConfig = z.object({
  architecture: z.string(),
  os: z.string(),
  created: z.string(),
  config: z.object({
    User: z.string(),
    WorkingDir: z.string(),
    Cmd: z.array(z.string()),
    Env: z.array(z.string()),
    Labels: z.record(z.string(), z.string()),
    ExposedPorts: z.record(z.string(), z.object({})).optional(),
  }),
  rootfs: z.object({ diff_ids: z.array(z.string()) }),
});
export type ImageConfig = z.infer<typeof ImageConfig>;
