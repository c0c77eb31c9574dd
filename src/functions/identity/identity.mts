// What the identity functions (with the SDK, and Floor without it) share once INIT has the
// caller identity: masking, the response, the handler. No SDK, no I/O at import.
import type { APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { artifactBytes, runtimeBuildDate } from "./artifact.mts";

/** Where Warp's SDK chunk loader (src/warp/sdk-chunk-loader.mts) leaves the code cache status. */
export const CODE_CACHE_STATUS = Symbol.for("warpstart.codeCache");

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

export interface IdentityBody extends CallerIdentity {
  lambdaRequestId: string | null;
  path: string | null;
  coldstart: boolean;
  variant: string;
  sdkVersion: string;
  nodeVersion: string;
  artifactBytes: number | null;
  runtimeBuildDate: string | null;
  /** Whether V8 took the build's code cache (Warp), or there is none. */
  codeCache: "accepted" | "rejected" | "absent";
}

/** The request path of an HTTP API (payload 2.0) event, or null for anything else. */
export function requestPath(event: unknown): string | null {
  if (typeof event !== "object" || event === null) return null;
  const rawPath = (event as { rawPath?: unknown }).rawPath;
  return typeof rawPath === "string" ? rawPath : null;
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

export interface BuildFacts {
  variant: string;
  sdkVersion: string;
  /** import.meta.url of the handler module: its folder is the artifact. */
  moduleUrl: string;
}

/** The handler of an environment whose INIT got `identity`: every invoke answers from it. */
export function identityHandler(identity: CallerIdentity, build: BuildFacts) {
  let coldstart = true;
  // Read on the first invoke, not during INIT, so they never count in Init Duration.
  let artifact: { bytes: number | null; runtimeBuildDate: string | null } | undefined;
  return async function handler(event: unknown, context?: Context): Promise<APIGatewayProxyStructuredResultV2> {
    artifact ??= { bytes: artifactBytes(build.moduleUrl), runtimeBuildDate: runtimeBuildDate(process.env.LAMBDA_RUNTIME_DIR) };
    const response = httpResponse({
      ...identity,
      lambdaRequestId: context?.awsRequestId ?? null,
      path: requestPath(event),
      coldstart,
      variant: build.variant,
      sdkVersion: build.sdkVersion,
      nodeVersion: process.version,
      artifactBytes: artifact.bytes,
      runtimeBuildDate: artifact.runtimeBuildDate,
      codeCache: ((globalThis as Record<symbol, unknown>)[CODE_CACHE_STATUS] as IdentityBody["codeCache"] | undefined) ?? "absent",
    });
    coldstart = false;
    return response;
  };
}
