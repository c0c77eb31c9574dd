// The identity function. All the work happens during INIT: top-level await makes the STS call
// finish before the first invoke, so provisioned concurrency pays for it, not the caller.
import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import type { APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { artifactBytes, runtimeBuildDate } from "./artifact.mts";
import { type CallerIdentity, httpResponse, maskAccountIds, requestPath } from "./identity.mts";

// One client per execution environment, reused by every invoke (and its keep-alive socket).
const sts = new STSClient({});

// Remember where the request went, so an INIT failure names the endpoint it could not reach.
let stsEndpoint = "the default STS endpoint";
sts.middlewareStack.add(
  (next) => (args) => {
    const { protocol, hostname, port } = args.request as { protocol?: string; hostname?: string; port?: number };
    stsEndpoint = `${protocol ?? "https:"}//${hostname}${port ? `:${port}` : ""}`;
    return next(args);
  },
  { step: "finalizeRequest", name: "warpstartRecordEndpoint" },
);

async function callerIdentity(): Promise<CallerIdentity> {
  const started = performance.now();
  try {
    const out = await sts.send(new GetCallerIdentityCommand({}));
    return {
      stsRequestId: out.$metadata.requestId ?? null,
      userId: maskAccountIds(out.UserId),
      account: maskAccountIds(out.Account),
      arn: maskAccountIds(out.Arn),
      initStsCallMs: Math.round((performance.now() - started) * 100) / 100,
    };
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new Error(`STS GetCallerIdentity failed during INIT (endpoint ${stsEndpoint}): ${reason}`, { cause });
  }
}

const identity = await callerIdentity();
let coldstart = true;
let artifact: { bytes: number | null; runtimeBuildDate: string | null } | undefined;

export async function handler(event: unknown, context?: Context): Promise<APIGatewayProxyStructuredResultV2> {
  artifact ??= {
    bytes: artifactBytes(import.meta.url),
    runtimeBuildDate: runtimeBuildDate(process.env.LAMBDA_RUNTIME_DIR),
  };
  const response = httpResponse({
    ...identity,
    lambdaRequestId: context?.awsRequestId ?? null,
    path: requestPath(event),
    coldstart,
    variant: WARPSTART_VARIANT,
    sdkVersion: WARPSTART_SDK_VERSION,
    nodeVersion: process.version,
    artifactBytes: artifact.bytes,
    runtimeBuildDate: artifact.runtimeBuildDate,
  });
  coldstart = false;
  return response;
}
