// Forced cold starts through the Lambda API (the lab's or a deployed stack's), for the bench and
// the doctor: for each round, in a fresh random order of variants, force a cold
// start (a configuration update + the SDK waiter, never a sleep), invoke cold with LogType
// Tail, read Init Duration from REPORT, time the invoke end to end, then invoke once warm.
import { InvokeCommand, type LambdaClient, UpdateFunctionConfigurationCommand, waitUntilFunctionUpdatedV2 } from "@aws-sdk/client-lambda";
import { CACHE_REJECTED } from "../src/warp/symbols.mts";
import { errorMessage } from "./cli.mts";
import { parseReport } from "./lambda-logs.mts";

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

/** One cell of the matrix: a function in a profile on a runtime, and the (lab or deployed) function that runs it. */
export interface ColdStartVariant {
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
  /** Makes the event each invoke sends (lab/events.mts); what it throws (no event for the function's trigger) fails the invoke. */
  event: () => unknown;
}

/** A cell and what its cold starts gave. */
export interface VariantResult extends Omit<ColdStartVariant, "event"> {
  /** Successful rounds only, in round order; failures never enter the timings. */
  samples: Sample[];
  /** Same order as samples: the arrays most consumers want. */
  initMs: number[];
  e2eMs: number[];
  failures: Failure[];
}

export interface RunOptions {
  client: LambdaClient;
  variants: ColdStartVariant[];
  rounds: number;
  /** Tags each forced update, so concurrent runs never reuse each other's description. */
  runId: string;
  onStep?: (done: { round: number; variant: ColdStartVariant; ok: boolean }) => void;
  /**
   * Ends a cell's environment once it is measured. The lab needs it: an idle environment of one
   * cell would keep a file another cell's cold start must read from storage (a custom runtime's
   * binary) in the page cache; on Lambda every environment has its own copy.
   */
  retire?: (functionName: string) => Promise<void>;
  random?: () => number;
}

export interface RunOutcome {
  variants: VariantResult[];
  /** What each cell's first good response said about itself (versions as deployed), by function name. */
  reported: Record<string, ReportedFacts>;
}

class InvokeFailure extends Error {
  readonly errorType: string;
  constructor(errorType: string, message: string) {
    super(message);
    this.errorType = errorType;
  }
}

export async function runColdStarts(options: RunOptions): Promise<RunOutcome> {
  const { client, rounds, runId } = options;
  const random = options.random ?? Math.random;
  const results = new Map<string, VariantResult>(
    options.variants.map(({ event: _event, ...cell }) => [cell.functionName, { ...cell, samples: [], initMs: [], e2eMs: [], failures: [] }]),
  );
  const reported: RunOutcome["reported"] = {};

  for (let round = 0; round < rounds; round++) {
    for (const variant of shuffled(options.variants, random)) {
      const result = results.get(variant.functionName)!;
      const fail = (phase: Failure["phase"], error: unknown) =>
        result.failures.push({
          round,
          phase,
          errorType: error instanceof InvokeFailure ? error.errorType : error instanceof Error ? error.name : "Error",
          message: errorMessage(error),
        });
      let ok = false;
      try {
        await forceColdStart(client, variant.functionName, `warpstart bench ${runId} round ${round}`);
        try {
          const cold = await invoke(client, variant);
          const report = parseReport(cold.log);
          if (!report) throw new InvokeFailure("NoReport", `no REPORT line in the invoke's log tail:\n${cold.log}`);
          if (report.initDurationMs === null) throw new InvokeFailure("NotCold", "the invoke after a configuration update was warm (no Init Duration)");
          reported[variant.functionName] ??= { ...bodyFacts(cold.payload), codeCacheRejected: cold.log.includes(CACHE_REJECTED) };
          let warmE2eMs: number | null = null;
          try {
            warmE2eMs = (await invoke(client, variant)).e2eMs;
          } catch (error) {
            fail("warm", error);
          }
          const sample: Sample = { round, initMs: report.initDurationMs, e2eMs: cold.e2eMs, durationMs: report.durationMs, warmE2eMs };
          result.samples.push(sample);
          result.initMs.push(sample.initMs);
          result.e2eMs.push(sample.e2eMs);
          ok = true;
        } catch (error) {
          fail("cold", error);
        }
        await options.retire?.(variant.functionName);
      } catch (error) {
        fail("update", error);
      }
      options.onStep?.({ round, variant, ok });
    }
  }
  return { variants: [...results.values()], reported };
}

async function forceColdStart(client: LambdaClient, functionName: string, description: string): Promise<void> {
  await client.send(new UpdateFunctionConfigurationCommand({ FunctionName: functionName, Description: description }));
  await waitUntilFunctionUpdatedV2({ client, maxWaitTime: 120 }, { FunctionName: functionName });
}

async function invoke(client: LambdaClient, variant: ColdStartVariant): Promise<{ e2eMs: number; log: string; payload: string }> {
  const request = new InvokeCommand({ FunctionName: variant.functionName, LogType: "Tail", Payload: Buffer.from(JSON.stringify(variant.event())) });
  const started = performance.now();
  const response = await client.send(request);
  const e2eMs = performance.now() - started;
  const payload = Buffer.from(response.Payload ?? []).toString("utf8");
  if (response.FunctionError) {
    const error = safeJson(payload) as { errorType?: string; errorMessage?: string } | null;
    throw new InvokeFailure(error?.errorType ?? response.FunctionError, error?.errorMessage ?? payload);
  }
  return { e2eMs, log: Buffer.from(response.LogResult ?? "", "base64").toString("utf8"), payload };
}

interface ReportedFacts {
  nodeVersion?: string;
  runtime?: string;
  sdkVersion?: string;
  /** What the response body says of Warp's code cache, if it says. */
  codeCache?: string;
  /** Whether the cold invoke's log has the chunk loader's warning that V8 rejected the cache. */
  codeCacheRejected?: boolean;
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

/** Fisher-Yates on a copy: every round gets its own order, so drift spreads over variants. */
function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}
