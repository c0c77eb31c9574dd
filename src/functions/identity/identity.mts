// Pure helpers of the identity function: no SDK, no I/O at import, so unit tests need no mocks.
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";

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
