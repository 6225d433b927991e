// The images `npm run images` builds, run the way a container runtime runs them: unpacked into an OCI
// bundle and started by runc, with the image's own user, working directory and environment.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUNNER_COMMAND } from "../../operator/src/reconcile/job.ts";
import {
  ensureImages,
  IMAGE_NAMES,
  imageConfig,
  unpackForRunc,
  type BuiltImage,
  type ImageName,
  type RuncBundle,
} from "../harness/images.ts";

let images: Map<ImageName, BuiltImage>;
let runner: RuncBundle | undefined;

beforeAll(async () => {
  images = await ensureImages();
  runner = await unpackForRunc(image("runner"));
});
afterAll(async () => {
  await runner?.remove();
});

function image(name: ImageName): BuiltImage {
  const found = images.get(name);
  if (!found) throw new Error(`image ${name} was not built`);
  return found;
}

function bundle(): RuncBundle {
  if (!runner) throw new Error("the runner bundle exists only once beforeAll has run");
  return runner;
}

describe("the built images", () => {
  it("are three distinct images with OCI labels, a non-root user and the Dockerfiles' commands", async () => {
    const commands: Record<ImageName, string[]> = {
      // The operator sets this command on every runner Job: the image must agree with it.
      runner: RUNNER_COMMAND,
      api: ["node", "api/src/main.ts"],
      operator: ["node", "operator/src/main.ts"],
    };
    const digests = new Set(IMAGE_NAMES.map((n) => image(n).digest));
    expect(digests.size).toBe(3);
    for (const name of IMAGE_NAMES) {
      const { config, os, architecture } = await imageConfig(image(name));
      expect({ os, architecture }).toEqual({ os: "linux", architecture: "amd64" });
      expect(config.User).toBe("1000:1000");
      expect(config.WorkingDir).toBe("/app");
      expect(config.Cmd).toEqual(commands[name]);
      expect(config.Env).toContain("NODE_ENV=production");
      expect(config.Labels["org.opencontainers.image.title"]).toBe(`causeway-${name}`);
      expect(config.Labels["org.opencontainers.image.revision"]).toBe(image(name).revision);
      for (const label of ["version", "created", "source", "licenses", "description"]) {
        expect(config.Labels[`org.opencontainers.image.${label}`], label).toMatch(/\S/);
      }
    }
  });

  it("runs the runner's command line (--help) under runc as the unprivileged user", async () => {
    const help = await bundle().run(["node", "runner/src/cli.ts", "--help"]);
    expect(help.output).toContain("target-validation");
    expect(help.exitCode).toBe(0);

    const who = await bundle().run([
      "node",
      "-e",
      "process.stdout.write(`${process.getuid()}:${process.getgid()} ${process.version}`)",
    ]);
    expect(who.exitCode).toBe(0);
    expect(who.output).toBe(`1000:1000 v${process.versions.node}`);
  });

  it("holds production dependencies only", async () => {
    const result = await bundle().run([
      "node",
      "-e",
      "for (const m of ['zod', 'vitest']) { try { require.resolve(m); console.log(m, 'present') } catch { console.log(m, 'absent') } }",
    ]);
    expect(result.output).toContain("zod present");
    expect(result.output).toContain("vitest absent");
  });

  it("the kernel OOM-kills the runner when it outgrows its memory limit", async () => {
    const result = await bundle().run(
      ["node", "-e", "const a = []; for (;;) a.push(Buffer.alloc(16 << 20, 1))"],
      { memoryLimitBytes: 64 * 1024 * 1024 },
    );
    expect(result.exitCode).toBe(137);
  });
});
