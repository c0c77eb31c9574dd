// The shape of a bench run's results.json: raw samples per cell (a function built in a profile,
// run on a runtime), so every table, ratio and chart can be recomputed from the file alone.

import type { Fidelity } from "../lab/fidelity.mts";
import type { CellResult } from "../measure/cold-starts.mts";

/** hyperfine's timings of each runtime starting, importing a built handler and exiting. */
export interface ProcessStart {
  /** e.g. "hyperfine 1.15.0". */
  tool: string;
  runs: number;
  warmup: number;
  results: Array<{
    label: string;
    /** The cell's name (CellResult.name; Empty for the empty handler). */
    name: string;
    runtime: string;
    meanMs: number;
    stddevMs: number;
    medianMs: number;
    minMs: number;
    maxMs: number;
    runs: number;
  }>;
  /** Cells whose command failed its check run: not timed. */
  failures: Array<{ label: string; name: string; runtime: string; message: string }>;
}

export interface BenchResults {
  /**
   * 3: cells name their function and profile; 4: a local target records the lab's fidelity; 5: a
   * Floor's cells name the function it is the Floor of; 6: `cells` (and a process-start row's
   * `name`), which schemas up to 5 called `variants` (and `variant`): readBenchResults reads both.
   */
  schema: 6;
  startedAt: string;
  finishedAt: string;
  target: { kind: "local"; endpoint: string; fidelity: Fidelity } | { kind: "aws"; stacks: string[]; region: string };
  rounds: number;
  /** One entry per cell, in the order given (each round shuffles its own order). */
  cells: CellResult[];
  /** The runtimes measured, in the order given. */
  runtimes: string[];
  processStart?: ProcessStart;
  /** Cells whose build failed (locally, a profile other than the function's own): never measured, the build's first line kept. */
  notBuilt?: Array<{ function: string; profile: string; message: string }>;
  versions: Record<string, string>;
  machine: { platform: string; arch: string; cpuModel: string; cpuCount: number; memoryGiB: number; hostname?: string };
}

/** The keys schemas up to 5 used for what schema 6 calls cells (and a process-start row's name). */
type OlderResults = Omit<BenchResults, "schema" | "cells" | "processStart"> & {
  schema: number;
  variants?: CellResult[];
  cells?: CellResult[];
  processStart?: Omit<ProcessStart, "results" | "failures"> & {
    results: Array<ProcessStart["results"][number] & { variant?: string }>;
    failures: Array<ProcessStart["failures"][number] & { variant?: string }>;
  };
};

/**
 * A results.json's text as schema 6, whichever schema wrote it (3 to 6: older files lack what later
 * schemas added, e.g. a Floor's floorOf, and their reports leave it out).
 */
export function readBenchResults(text: string): BenchResults {
  const { variants, cells, processStart, ...rest } = JSON.parse(text) as OlderResults;
  const named = <T extends { name: string; variant?: string }>({ variant, ...row }: T) => ({ ...row, name: row.name ?? variant });
  return {
    ...rest,
    schema: 6,
    cells: cells ?? variants ?? [],
    ...(processStart && { processStart: { ...processStart, results: processStart.results.map(named), failures: processStart.failures.map(named) } }),
  };
}

/** How a run names a function built in a profile: its logical id, or <LogicalId>/<Profile> when it measures several profiles of it. */
/** What a build's name and profile end with when it starts through the exec wrapper (npm run bench -- --exec-wrapper). */
export const WRAPPED = "+wrapper";

export function cellName(fn: string, profile: string, severalProfiles: boolean): string {
  return severalProfiles ? `${fn}/${profile}` : fn;
}

/** How reports label a cell: its name, followed by its runtime when the run measured several. */
export function cellLabel(results: Pick<BenchResults, "runtimes">, cell: Pick<CellResult, "name" | "runtime">): string {
  return results.runtimes.length > 1 ? `${cell.name} (${cell.runtime})` : cell.name;
}
