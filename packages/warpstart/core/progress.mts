// Progress for long runs (the bench, the doctor). On a terminal: one line redrawn in place. Elsewhere (CI logs,
// files), `\r` redraws would become thousands of lines, so only every 5% step is printed.

export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  /** Defaults to process.stderr, keeping stdout for the results. */
  stream?: ProgressStream;
  label?: string;
  /** Milliseconds clock; injectable for tests. */
  now?: () => number;
}

export interface Progress {
  tick(detail?: string): void;
  done(): void;
}

const BAR_WIDTH = 20;
const STEPS = 20; // non-TTY: one line per 5%

/** mm:ss; minutes keep counting past 59 since bench runs rarely last hours. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "--:--";
  const seconds = Math.round(ms / 1000);
  return `${String(Math.floor(seconds / 60)).padStart(2, "0")}:${String(seconds % 60).padStart(2, "0")}`;
}

export function createProgress(total: number, options: ProgressOptions = {}): Progress {
  const stream = options.stream ?? process.stderr;
  const now = options.now ?? Date.now;
  const prefix = options.label ? `${options.label} ` : "";
  const tty = stream.isTTY === true;
  const started = now();
  let count = 0;
  let lastDetail = "";
  let lastStep = 0;
  let lastPrinted = -1;
  let finished = false;

  function status(): string {
    const shown = Math.min(count, total);
    const fraction = total > 0 ? shown / total : 1;
    const elapsed = now() - started;
    // Mean time per tick so far: bench rounds are similar in cost, so this is a fair estimate.
    const eta = count > 0 ? (elapsed / count) * Math.max(0, total - count) : NaN;
    return `${shown}/${total} ${String(Math.floor(fraction * 100)).padStart(3)}% elapsed ${formatDuration(elapsed)} eta ${formatDuration(eta)}`;
  }

  function render(): void {
    const detail = lastDetail ? ` ${lastDetail}` : "";
    if (tty) {
      const filled = total > 0 ? Math.round((Math.min(count, total) / total) * BAR_WIDTH) : BAR_WIDTH;
      const line = `${prefix}[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${status()}${detail}`;
      // One column short of the width: writing the last column makes some terminals wrap.
      const width = Math.max(10, (stream.columns ?? 80) - 1);
      const fitted = line.length > width ? `${line.slice(0, width - 1)}…` : line;
      stream.write(`\r\x1b[2K${fitted}`);
    } else {
      stream.write(`${prefix}${status()}${detail}\n`);
    }
    lastPrinted = count;
  }

  return {
    tick(detail?: string): void {
      if (finished) return;
      count++;
      if (detail !== undefined) lastDetail = detail.replace(/\s+/g, " ").trim();
      if (tty) {
        render();
        return;
      }
      const step = total > 0 ? Math.floor((Math.min(count, total) / total) * STEPS) : STEPS;
      if (step > lastStep) {
        lastStep = step;
        render();
      }
    },
    done(): void {
      if (finished) return;
      finished = true;
      if (tty) {
        render();
        stream.write("\n");
      } else if (lastPrinted !== count) {
        render();
      }
    },
  };
}
