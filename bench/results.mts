// The shape of a bench run's results.json: raw samples per variant, so every table, ratio and
// chart can be recomputed from the file alone.

import type { Fidelity } from "../lab/fidelity.mts";

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
  /** How tables name the cell: the function's logical id, followed by /<profile> when the run built it in several profiles. */
  name: string;
  /** The template function (logical id) and the build profile it ran in. */
  function: string;
  profile: string;
  /** The function this one is the Floor of (its template's Metadata.FloorOf); absent for any other function. */
  floorOf?: string;
  /** What ran it (core/runtimes.mts: node22, node24, deno, bun, or a runtime given by path). */
  runtime: string;
  /** The Lambda function name invoked (local logical id or the deployed function's name). */
  functionName: string;
  /** Successful rounds only, in round order; failures never enter the timings. */
  samples: Sample[];
  /** Same order as samples: the arrays most consumers want. */
  initMs: number[];
  e2eMs: number[];
  failures: Failure[];
}

/** hyperfine's timings of each runtime starting, importing a built handler and exiting. */
export interface ProcessStart {
  /** e.g. "hyperfine 1.15.0". */
  tool: string;
  runs: number;
  warmup: number;
  results: Array<{
    label: string;
    variant: string;
    runtime: string;
    meanMs: number;
    stddevMs: number;
    medianMs: number;
    minMs: number;
    maxMs: number;
    runs: number;
  }>;
  /** Cells whose command failed its check run: not timed. */
  failures: Array<{ label: string; variant: string; runtime: string; message: string }>;
}

export interface BenchResults {
  /** 3: variants[] name their function and profile; 4: a local target records the lab's fidelity; 5: a Floor's variants name the function it is the Floor of. */
  schema: 5;
  startedAt: string;
  finishedAt: string;
  target: { kind: "local"; endpoint: string; fidelity: Fidelity } | { kind: "aws"; stacks: string[]; region: string };
  rounds: number;
  /** One entry per variant × runtime cell, in the order given (each round shuffles its own order). */
  variants: VariantResult[];
  /** The runtimes measured, in the order given. */
  runtimes: string[];
  processStart?: ProcessStart;
  versions: Record<string, string>;
  machine: { platform: string; arch: string; cpuModel: string; cpuCount: number; memoryGiB: number; hostname?: string };
}

/** How a run names a function measured in a profile: its logical id, or <LogicalId>/<Profile> when it measures several profiles of it. */
export function cellName(fn: string, profile: string, severalProfiles: boolean): string {
  return severalProfiles ? `${fn}/${profile}` : fn;
}

/** How reports name a cell: the variant, followed by its runtime when the run measured several. */
export function cellLabel(results: Pick<BenchResults, "runtimes">, variant: Pick<VariantResult, "name" | "runtime">): string {
  return results.runtimes.length > 1 ? `${variant.name} (${variant.runtime})` : variant.name;
}
