// What every example reports about itself, for the lab, the bench and the load test to read:
// its build (constants the pipeline embeds), whether this was the environment's first invoke,
// how it was initialized, and whether V8 took Warp's code cache. No I/O, nothing at import.
import { stopwatch } from "../../../lib/stopwatch.mts";

declare const WARPSTART_FUNCTION: string;
declare const WARPSTART_PROFILE: string;
declare const WARPSTART_SDK_VERSION: string;

let coldstart = true;

/** The facts of this invoke; the first call in an environment says coldstart: true. */
export function invokeFacts() {
  const facts = {
    function: WARPSTART_FUNCTION,
    profile: WARPSTART_PROFILE,
    sdkVersion: WARPSTART_SDK_VERSION,
    coldstart,
    initializationType: process.env.AWS_LAMBDA_INITIALIZATION_TYPE ?? null,
    // Warp's chunk loader leaves it here (CODE_CACHE_STATUS in the project's src/contract.mts).
    codeCache: (globalThis as Record<symbol, unknown>)[Symbol.for("warpstart.codeCache")] ?? "absent",
  };
  coldstart = false;
  return facts;
}

// The stopwatch (see stopwatch.mts why not performance.now()), for the examples' handlers too.
export { stopwatch };

/** K from the event's ?calls=K (1-100; anything else: 0), for the per-invoke calls the keep-alive study times. */
export function requestedCalls(event: { queryStringParameters?: Record<string, string | undefined> } | undefined): number {
  const calls = Number(event?.queryStringParameters?.calls);
  return Number.isInteger(calls) && calls >= 1 && calls <= 100 ? calls : 0;
}

/** The per-invoke DynamoDB operation the event asks for: ?operation=ListTables, else PutItem. */
export function requestedOperation(event: { queryStringParameters?: Record<string, string | undefined> } | undefined): "PutItem" | "ListTables" {
  return event?.queryStringParameters?.operation === "ListTables" ? "ListTables" : "PutItem";
}

/** Makes `count` calls one after the other and times each. */
export async function timedCalls(count: number, call: () => Promise<unknown>): Promise<{ count: number; latenciesMs: number[] }> {
  const latenciesMs: number[] = [];
  for (let i = 0; i < count; i++) {
    const elapsedMs = stopwatch();
    await call();
    latenciesMs.push(elapsedMs());
  }
  return { count, latenciesMs };
}

/** An HTTP API (payload 2.0) answer with a JSON body. */
export const json = (body: unknown) => ({ statusCode: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
