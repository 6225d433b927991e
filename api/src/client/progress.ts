/** A progress bar on standard error: redrawn in place on a terminal, one line per change otherwise. */
import type { Progress } from "./wait.ts";

const WIDTH = 30;

export function progressLine(p: Progress): string {
  const pct = p.status === "completed" ? 100 : Math.max(0, Math.min(100, p.progress_pct ?? 0));
  const filled = Math.round((pct / 100) * WIDTH);
  const bar = "#".repeat(filled) + "-".repeat(WIDTH - filled);
  const step = p.processing_step ? ` ${p.processing_step}` : "";
  return `[${bar}] ${String(pct).padStart(3)}% ${p.status}${step}`;
}

export function progressReporter(stream: NodeJS.WriteStream = process.stderr): {
  update(p: Progress): void;
  done(): void;
} {
  const tty = stream.isTTY === true;
  let drawn = false;
  return {
    update(p) {
      if (tty) {
        stream.write(`\r\x1b[2K${progressLine(p)}`);
        drawn = true;
      } else stream.write(progressLine(p) + "\n");
    },
    done() {
      if (tty && drawn) stream.write("\n");
    },
  };
}
