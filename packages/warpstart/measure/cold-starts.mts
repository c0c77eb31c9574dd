// Forced cold starts through the Lambda API (the lab's or a deployed stack's), for the bench and
// the doctor: for each round, in a fresh random order of cells, force a cold
// start (a configuration update + the SDK waiter, never a sleep), invoke cold with LogType
// Tail, read Init Duration from REPORT, time the invoke end to end, then invoke once warm.
import type { LambdaClient } from "@aws-sdk/client-lambda";
import { errorMessage } from "../core/errors.mts";
import { parseInitStart, parseReport } from "../core/lambda-logs.mts";
import { lambdaSdk } from "../core/tools.mts";
import { CACHE_REJECTED } from "../src/contract.mts";

export interface Sample {
  /** 0-based round this sample belongs to; pairs cells measured in the same round. */
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

/** The profile of a cell whose function runs as a builder other than this project's built it (SAM's npm or esbuild builder). */
export const AS_BUILT = "as built";

/** A cell: a function built in a profile, run on a runtime, and the (lab or deployed) Lambda function that runs it. */
export interface ColdStartCell {
  /** How tables name the cell: the function's logical id, followed by /<profile> when the run built it in several profiles. */
  name: string;
  /** The template function (logical id) and the build profile it ran in (AS_BUILT: none of this project's). */
  function: string;
  profile: string;
  /** The function this one is the Floor of (its template's Metadata.FloorOf); absent for any other function. */
  floorOf?: string;
  /** Started through the exec wrapper that drops the runtime's V8 flags (src/warp/warp-exec); absent: as the runtime starts it. */
  execWrapper?: boolean;
  /** What ran it (core/runtimes.mts: node22, node24, deno, bun, or a runtime given by path). */
  runtime: string;
  /** The Lambda function name invoked (local logical id or the deployed function's name). */
  functionName: string;
  /** Makes the event each invoke sends (emulation/events.mts); what it throws (no event for the function's trigger) fails the invoke. */
  event: () => unknown;
}

/** A cell and what its cold starts gave. */
export interface CellResult extends Omit<ColdStartCell, "event"> {
  /** Successful rounds only (and with initOfFailedHandlers, INITs a failed handler followed), in round order; failures never enter the timings. */
  samples: Sample[];
  /** Same order as samples: the arrays most consumers want. */
  initMs: number[];
  e2eMs: number[];
  failures: Failure[];
}

export interface RunOptions {
  client: LambdaClient;
  cells: ColdStartCell[];
  rounds: number;
  /** Tags each forced update, so concurrent runs never reuse each other's description. */
  runId: string;
  onStep?: (done: { round: number; cell: ColdStartCell; ok: boolean }) => void;
  /**
   * Ends a cell's environment once it is measured. The lab needs it: an idle environment of one
   * cell would keep a file another cell's cold start must read from storage (a custom runtime's
   * binary) in the page cache; on Lambda every environment has its own copy.
   */
  retire?: (functionName: string) => Promise<void>;
  /**
   * Keeps the Init Duration of a cold invoke whose handler failed once INIT had completed, as a
   * sample without a warm invoke (the failure is recorded too): the doctor's event may not be one
   * the handler takes, and INIT is measured all the same. The bench counts the round failed.
   */
  initOfFailedHandlers?: boolean;
  random?: () => number;
}

export interface RunOutcome {
  cells: CellResult[];
  /** What each cell's first good response said about itself (versions as deployed), by function name. */
  reported: Record<string, ReportedFacts>;
}

class InvokeFailure extends Error {
  readonly errorType: string;
  /** The failed invoke's log tail and time, when the function answered with an error. */
  readonly answered?: { log: string; e2eMs: number };
  constructor(errorType: string, message: string, answered?: { log: string; e2eMs: number }) {
    super(message);
    this.errorType = errorType;
    this.answered = answered;
  }
}

/** A cold invoke that failed in its handler after a complete INIT: its REPORT's Init Duration (null: INIT itself failed, or nothing to read). */
function initBeforeHandlerFailure(error: unknown): { initMs: number; durationMs: number; e2eMs: number } | null {
  if (!(error instanceof InvokeFailure) || !error.answered) return null;
  const { log, e2eMs } = error.answered;
  // A failed INIT logs INIT_REPORT with its status (Lambda's and the lab's logs alike).
  if (/^INIT_REPORT .*\tStatus: /m.test(log)) return null;
  const report = parseReport(log);
  return report?.initDurationMs == null ? null : { initMs: report.initDurationMs, durationMs: report.durationMs, e2eMs };
}

export async function runColdStarts(options: RunOptions): Promise<RunOutcome> {
  const { client, rounds, runId } = options;
  const random = options.random ?? Math.random;
  const results = new Map<string, CellResult>(
    options.cells.map(({ event: _event, ...cell }) => [cell.functionName, { ...cell, samples: [], initMs: [], e2eMs: [], failures: [] }]),
  );
  const reported: RunOutcome["reported"] = {};

  for (let round = 0; round < rounds; round++) {
    for (const cell of shuffled(options.cells, random)) {
      const result = results.get(cell.functionName)!;
      const fail = (phase: Failure["phase"], error: unknown) =>
        result.failures.push({
          round,
          phase,
          errorType: error instanceof InvokeFailure ? error.errorType : error instanceof Error ? error.name : "Error",
          message: errorMessage(error),
        });
      let ok = false;
      try {
        await forceColdStart(client, cell.functionName, `warpstart bench ${runId} round ${round}`);
        try {
          const cold = await invoke(client, cell);
          const report = parseReport(cold.log);
          if (!report) throw new InvokeFailure("NoReport", `no REPORT line in the invoke's log tail:\n${cold.log}`);
          if (report.initDurationMs === null) throw new InvokeFailure("NotCold", "the invoke after a configuration update was warm (no Init Duration)");
          reported[cell.functionName] ??= {
            ...bodyFacts(cold.payload),
            codeCacheRejected: cold.log.includes(CACHE_REJECTED),
            initStart: parseInitStart(cold.log) ?? undefined,
          };
          let warmE2eMs: number | null = null;
          try {
            warmE2eMs = (await invoke(client, cell)).e2eMs;
          } catch (error) {
            fail("warm", error);
          }
          const sample: Sample = { round, initMs: report.initDurationMs, e2eMs: cold.e2eMs, durationMs: report.durationMs, warmE2eMs };
          result.samples.push(sample);
          result.initMs.push(sample.initMs);
          result.e2eMs.push(sample.e2eMs);
          ok = true;
        } catch (error) {
          const initOnly = options.initOfFailedHandlers ? initBeforeHandlerFailure(error) : null;
          if (initOnly) {
            result.samples.push({ round, ...initOnly, warmE2eMs: null });
            result.initMs.push(initOnly.initMs);
            result.e2eMs.push(initOnly.e2eMs);
          }
          fail("cold", error);
        }
        await options.retire?.(cell.functionName);
      } catch (error) {
        fail("update", error);
      }
      options.onStep?.({ round, cell, ok });
    }
  }
  return { cells: [...results.values()], reported };
}

async function forceColdStart(client: LambdaClient, functionName: string, description: string): Promise<void> {
  const { UpdateFunctionConfigurationCommand, waitUntilFunctionUpdatedV2 } = await lambdaSdk();
  await client.send(new UpdateFunctionConfigurationCommand({ FunctionName: functionName, Description: description }));
  await waitUntilFunctionUpdatedV2({ client, maxWaitTime: 120 }, { FunctionName: functionName });
}

async function invoke(client: LambdaClient, cell: ColdStartCell): Promise<{ e2eMs: number; log: string; payload: string }> {
  const request = new (await lambdaSdk()).InvokeCommand({
    FunctionName: cell.functionName,
    LogType: "Tail",
    Payload: Buffer.from(JSON.stringify(cell.event())),
  });
  const started = performance.now();
  const response = await client.send(request);
  const e2eMs = performance.now() - started;
  const payload = Buffer.from(response.Payload ?? []).toString("utf8");
  const log = Buffer.from(response.LogResult ?? "", "base64").toString("utf8");
  if (response.FunctionError) {
    const error = safeJson(payload) as { errorType?: string; errorMessage?: string } | null;
    throw new InvokeFailure(error?.errorType ?? response.FunctionError, error?.errorMessage ?? payload, { log, e2eMs });
  }
  return { e2eMs, log, payload };
}

export interface ReportedFacts {
  nodeVersion?: string;
  runtime?: string;
  sdkVersion?: string;
  /** What the response body says of Warp's code cache, if it says. */
  codeCache?: string;
  /** Whether the cold invoke's log has the chunk loader's warning that the cache was rejected (by V8, or as another build's). */
  codeCacheRejected?: boolean;
  /** The runtime version of the cold start's INIT_START line (absent when the 4 KB log tail has lost it). */
  initStart?: { runtimeVersion: string; runtimeVersionArn: string };
}

/** What a function says about its build in the identity JSON of its HTTP API response. */
function bodyFacts(payload: string): ReportedFacts {
  const body = safeJson((safeJson(payload) as { body?: string } | null)?.body ?? "") as ReportedFacts | null;
  return { nodeVersion: body?.nodeVersion, runtime: body?.runtime, sdkVersion: body?.sdkVersion, codeCache: body?.codeCache };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Fisher-Yates on a copy: every round gets its own order, so drift spreads over cells. */
function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}
