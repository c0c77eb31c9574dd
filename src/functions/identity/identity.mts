// What the identity functions (with the SDK, and Floor without it) share once INIT has the
// caller identity: masking, the event's `calls` parameter, the response, the handler. No SDK,
// no I/O at import.
import type { APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { CODE_CACHE_STATUS, type CodeCacheStatus } from "warpstart/contract";
import { stopwatch } from "../../../lib/stopwatch.mts";
import { artifactBytes, runtimeBuildDate } from "./artifact.mts";

const ACCOUNT_ID = /(?<!\d)\d{12}(?!\d)/g;
export const MASKED_ACCOUNT_ID = "************";

/** Masks every stand-alone 12-digit number (an AWS account id); longer digit runs are left alone. */
export function maskAccountIds(text: string | undefined): string | null {
  return text === undefined ? null : text.replace(ACCOUNT_ID, MASKED_ACCOUNT_ID);
}

export interface CallerIdentity {
  stsRequestId: string | null;
  userId: string | null;
  account: string | null;
  arn: string | null;
  initStsCallMs: number;
}

/** The extra STS calls one invoke made, in order (the event's ?calls=K). */
export interface InvokeCalls {
  count: number;
  latenciesMs: number[];
}

export interface IdentityBody extends CallerIdentity {
  lambdaRequestId: string | null;
  path: string | null;
  coldstart: boolean;
  /** The function's logical id in the template, and the build profile it was built with. */
  function: string;
  profile: string;
  sdkVersion: string;
  /** The Node.js version the runtime reports (Deno and Bun report the one they are compatible with). */
  nodeVersion: string;
  /** What actually runs the function, e.g. "node 22.23.3", "deno 2.9.5", "bun 1.4.5". */
  runtime: string;
  artifactBytes: number | null;
  runtimeBuildDate: string | null;
  /** Whether V8 took the build's code cache (Warp), or there is none. */
  codeCache: CodeCacheStatus;
  /** AWS_LAMBDA_INITIALIZATION_TYPE: on-demand, provisioned-concurrency, snap-start (null outside Lambda). */
  initializationType: string | null;
  /** Sequential GetCallerIdentity calls this invoke made with the INIT's client (count 0: none asked, or Floor). */
  calls: InvokeCalls;
}

/** The request path of an HTTP API (payload 2.0) event, or null for anything else. */
export function requestPath(event: unknown): string | null {
  if (typeof event !== "object" || event === null) return null;
  const rawPath = (event as { rawPath?: unknown }).rawPath;
  return typeof rawPath === "string" ? rawPath : null;
}

/** The most extra STS calls one invoke makes. */
export const MAX_CALLS = 50;

/**
 * How many sequential STS calls an HTTP API event asks for: the query string `calls=K`, K a
 * whole number from 1 to MAX_CALLS. Anything else (absent, not a number, 0, too large, a
 * repeated parameter, which API Gateway joins with commas) is ignored: 0.
 */
export function requestedCalls(event: unknown): number {
  if (typeof event !== "object" || event === null) return 0;
  const query = (event as { queryStringParameters?: unknown }).queryStringParameters;
  if (typeof query !== "object" || query === null) return 0;
  const calls = (query as { calls?: unknown }).calls;
  if (typeof calls !== "string" || !/^\d{1,3}$/.test(calls)) return 0;
  const count = Number(calls);
  return count >= 1 && count <= MAX_CALLS ? count : 0;
}

/** Makes `count` calls one after the other, timing each; the first failure fails them all, saying which call it was. */
export async function sequentialCalls(count: number, call: () => Promise<unknown>): Promise<InvokeCalls> {
  const latenciesMs: number[] = [];
  for (let i = 1; i <= count; i++) {
    const elapsedMs = stopwatch();
    try {
      await call();
    } catch (cause) {
      throw new Error(`STS GetCallerIdentity call ${i} of ${count} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    }
    latenciesMs.push(elapsedMs());
  }
  return { count, latenciesMs };
}

export function httpResponse(body: IdentityBody): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  };
}

/** The error INIT fails with when STS cannot be used: it names the endpoint and keeps the cause. */
export function stsInitError(endpoint: string, cause: unknown): Error {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new Error(`STS GetCallerIdentity failed during INIT (endpoint ${endpoint}): ${reason}`, { cause });
}

/**
 * The CommonJS pattern that top-level await replaces: INIT starts the call and does not wait
 * for it; each invoke waits (only the first one really does). A failure is handled at once, so
 * it is never an unhandled rejection that ends the process while no invoke waits: the next
 * invoke fails with it, and the one after starts the call again (as Lambda retries a failed
 * INIT in a new environment).
 */
export function startedAtInit(start: () => Promise<CallerIdentity>): () => Promise<CallerIdentity> {
  const begin = () => {
    const call = start();
    call.catch(() => undefined);
    return call;
  };
  let pending: Promise<CallerIdentity> | undefined = begin();
  return async () => {
    pending ??= begin();
    try {
      return await pending;
    } catch (error) {
      pending = undefined;
      throw error;
    }
  };
}

export interface BuildFacts {
  function: string;
  profile: string;
  sdkVersion: string;
  /** The handler module's file: URL (import.meta.url; from __filename in CommonJS): its folder is the artifact. */
  moduleUrl: string;
  /** One GetCallerIdentity with the INIT's client, for the event's `calls`; without it (Floor), none are made. */
  call?: () => Promise<unknown>;
}

/** Deno and Bun announce themselves with a global; Node does not. */
function runtimeVersion(): string {
  const runtimes = globalThis as { Deno?: { version: { deno: string } }; Bun?: { version: string } };
  if (runtimes.Deno) return `deno ${runtimes.Deno.version.deno}`;
  if (runtimes.Bun) return `bun ${runtimes.Bun.version}`;
  return `node ${process.versions.node}`;
}

/**
 * The handler of an environment whose INIT got `identity` (or, for CommonJS, started getting
 * it: see startedAtInit): every invoke answers from it, after the extra calls its event asks for.
 */
export function identityHandler(identity: CallerIdentity | (() => Promise<CallerIdentity>), build: BuildFacts) {
  let coldstart = true;
  // Read on the first invoke, not during INIT, so they never count in Init Duration.
  let artifact: { bytes: number | null; runtimeBuildDate: string | null } | undefined;
  return async function handler(event: unknown, context?: Context): Promise<APIGatewayProxyStructuredResultV2> {
    const caller = typeof identity === "function" ? await identity() : identity;
    artifact ??= { bytes: artifactBytes(build.moduleUrl), runtimeBuildDate: runtimeBuildDate(process.env.LAMBDA_RUNTIME_DIR) };
    const calls = build.call ? await sequentialCalls(requestedCalls(event), build.call) : { count: 0, latenciesMs: [] };
    const response = httpResponse({
      ...caller,
      lambdaRequestId: context?.awsRequestId ?? null,
      path: requestPath(event),
      coldstart,
      function: build.function,
      profile: build.profile,
      sdkVersion: build.sdkVersion,
      nodeVersion: process.version,
      runtime: runtimeVersion(),
      artifactBytes: artifact.bytes,
      runtimeBuildDate: artifact.runtimeBuildDate,
      codeCache: ((globalThis as Record<symbol, unknown>)[CODE_CACHE_STATUS] as CodeCacheStatus | undefined) ?? "absent",
      initializationType: process.env.AWS_LAMBDA_INITIALIZATION_TYPE ?? null,
      calls,
    });
    coldstart = false;
    return response;
  };
}
