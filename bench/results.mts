// The shape of a bench run's results.json: raw samples per variant, so every table, ratio and
// chart can be recomputed from the file alone.

export interface Sample {
  /** 0-based round this sample belongs to; pairs variants measured in the same round. */
  round: number;
  /** Init Duration from the cold invoke's REPORT line. */
  initMs: number;
  /** Client-side wall time of the cold invoke (request sent -> response read). */
  e2eMs: number;
  /** Duration from the cold invoke's REPORT line. */
  durationMs: number;
  /** Client-side wall time of a warm invoke right after the cold one, or null if it failed. */
  warmE2eMs: number | null;
}

export interface Failure {
  round: number;
  phase: "update" | "cold" | "warm";
  /** e.g. Runtime.InitError, Sandbox.Timedout, or an SDK error name. */
  errorType: string;
  message: string;
}

export interface VariantResult {
  name: string;
  /** The Lambda function name invoked (local logical id or the deployed function's name). */
  functionName: string;
  /** Successful rounds only, in round order; failures never enter the timings. */
  samples: Sample[];
  /** Same order as samples: the arrays most consumers want. */
  initMs: number[];
  e2eMs: number[];
  failures: Failure[];
}

export interface BenchResults {
  schema: 1;
  startedAt: string;
  finishedAt: string;
  target: { kind: "local"; endpoint: string } | { kind: "aws"; stack: string; region: string };
  rounds: number;
  /** Names in the order the run shuffled them is per round; this is the order given. */
  variants: VariantResult[];
  versions: Record<string, string>;
  machine: { platform: string; arch: string; cpuModel: string; cpuCount: number; memoryGiB: number; hostname?: string };
}
