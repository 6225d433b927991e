/**
 * The `causeway` launcher as a shell runs it: under the pinned Node, and under an older Node
 * found on the machine's PATH (a Node 20), which must re-run it quietly under the pinned one.
 */
import { execFile, execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const LAUNCHER = fileURLToPath(new URL("./causeway.js", import.meta.url));
// The machine's own Node, PATH without node_modules/.bin (where npm puts the pinned one).
const systemPath = (process.env.PATH ?? "")
  .split(":")
  .filter((d) => !d.includes("node_modules"))
  .join(":");
const systemNode = (() => {
  try {
    const path = execFileSync("sh", ["-c", "command -v node"], { env: { PATH: systemPath } })
      .toString()
      .trim();
    const major = Number(execFileSync(path, ["-p", "process.versions.node.split('.')[0]"]).toString());
    return major < 24 ? path : null;
  } catch {
    return null;
  }
})();

async function launch(node: string, args: string[]) {
  return run(node, [LAUNCHER, ...args], { env: { PATH: systemPath, HOME: "/nonexistent" } }).then(
    (r) => ({ ...r, code: 0 }),
    (e: { stdout: string; stderr: string; code: number }) => e,
  );
}

describe("the causeway launcher", () => {
  it("runs the CLI under the pinned Node, its errors as one line and exit status 1", async () => {
    const help = await launch(process.execPath, ["--help"]);
    expect(help).toMatchObject({ code: 0, stderr: "" });
    expect(help.stdout).toMatch(/^Usage: causeway /);
    const failed = await launch(process.execPath, [
      "status",
      "x",
      "--url",
      "http://127.0.0.1:9",
      "--api-key",
      "k",
    ]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^causeway: error: network_error: /);
  });

  it.skipIf(systemNode === null)(
    "re-runs itself quietly under the pinned Node when started by an older one",
    async () => {
      const help = await launch(systemNode!, ["--help"]);
      expect(help).toMatchObject({ code: 0, stderr: "" });
      expect(help.stdout).toBe((await launch(process.execPath, ["--help"])).stdout);
      const failed = await launch(systemNode!, [
        "status",
        "x",
        "--url",
        "http://127.0.0.1:9",
        "--api-key",
        "k",
      ]);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(/^causeway: error: network_error: /);
    },
  );
});
