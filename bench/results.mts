// The shape of a bench run's results.json: raw samples per variant, so every table, ratio and
// chart can be recomputed from the file alone.

import type { VariantResult } from "../core/cold-starts.mts";
import type { Fidelity } from "../lab/fidelity.mts";

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
  /** Cells whose build failed (locally, a profile other than the function's own): never measured, the build's first line kept. */
  notBuilt?: Array<{ function: string; profile: string; message: string }>;
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
