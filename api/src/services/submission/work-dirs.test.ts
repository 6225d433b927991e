import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildTestApp } from "../../testing/helper.ts";
import { removeEmptyWorkDirs, runnersTmpDir, uploadsDir, workRoot } from "./work-dirs.ts";

const dataDirs: string[] = [];
async function freshDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "causeway-workdirs-"));
  dataDirs.push(dir);
  return dir;
}

afterEach(async () => {
  for (const dir of dataDirs.splice(0)) {
    await rm(workRoot(dir), { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
  }
});

describe("removeEmptyWorkDirs", () => {
  it("removes the data directory's work folder when nothing is left in it", async () => {
    const dataDir = await freshDataDir();
    await mkdir(uploadsDir(dataDir), { recursive: true });
    await mkdir(runnersTmpDir(dataDir), { recursive: true });
    await removeEmptyWorkDirs(dataDir);
    expect(existsSync(workRoot(dataDir))).toBe(false);
  });

  it("keeps a folder that still holds files (the next start's sweep owns them)", async () => {
    const dataDir = await freshDataDir();
    const live = join(uploadsDir(dataDir), "upload-live");
    await mkdir(live, { recursive: true });
    await writeFile(join(live, "degs.csv"), "gene\nSTAT1\n");
    await mkdir(runnersTmpDir(dataDir), { recursive: true });
    await removeEmptyWorkDirs(dataDir);
    expect(await readdir(workRoot(dataDir))).toEqual(["uploads"]);
    expect(await readdir(uploadsDir(dataDir))).toEqual(["upload-live"]);
  });

  it("is a no-op when the folder was never made", async () => {
    const dataDir = await freshDataDir();
    await expect(removeEmptyWorkDirs(dataDir)).resolves.toBeUndefined();
  });
});

describe("a server's clean stop", () => {
  it("leaves no work folder behind in the system temp directory", async () => {
    const t = await buildTestApp();
    const root = workRoot(t.ctx.config.dataDir);
    await mkdir(uploadsDir(t.ctx.config.dataDir), { recursive: true });
    expect(existsSync(root)).toBe(true);
    await t.close();
    expect(existsSync(root)).toBe(false);
  });
});
