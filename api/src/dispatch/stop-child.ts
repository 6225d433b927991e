/** Ending a runner child process, the same way wherever one is ended. */
import type { ChildProcess } from "node:child_process";

/**
 * Sends SIGTERM (the runner then reports and cleans up) and resolves when the child has exited,
 * or after `graceMs` with a SIGKILL for a child that did not stop.
 */
export function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve();
    }, graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
