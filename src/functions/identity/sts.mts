// The SDK side of the identity functions, shared by the ES-module handler (index.mts) and the
// CommonJS one (../cjs/index.mts): one STS client per execution environment and its calls.
import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import { stopwatch } from "../../../lib/stopwatch.mts";
import { type BuildFacts, type CallerIdentity, maskAccountIds, stsInitError } from "./identity.mts";

// One client per execution environment, reused by every invoke (and its keep-alive socket: the
// SDK's default https agent keeps alive). KEEP_ALIVE is a build-time constant from the template
// (BuildProperties.Define): NoKeepAlive sets it false, for a new connection on every call.
const keepAlive = typeof KEEP_ALIVE === "undefined" || KEEP_ALIVE;
const sts = new STSClient(keepAlive ? {} : { requestHandler: { httpsAgent: { keepAlive: false } } });

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

/** One GetCallerIdentity with the environment's client (an invoke's extra calls). */
const getCallerIdentity = () => sts.send(new GetCallerIdentityCommand({}));

/** INIT's call: the masked identity and how long the call took; a failure names the endpoint. */
export async function callerIdentity(): Promise<CallerIdentity> {
  const elapsedMs = stopwatch();
  try {
    const out = await getCallerIdentity();
    return {
      stsRequestId: out.$metadata.requestId ?? null,
      userId: maskAccountIds(out.UserId),
      account: maskAccountIds(out.Account),
      arn: maskAccountIds(out.Arn),
      initStsCallMs: elapsedMs(),
    };
  } catch (cause) {
    throw stsInitError(stsEndpoint, cause);
  }
}

/** What a handler built with the SDK says about itself, and the client its invokes call STS with. */
export function sdkBuildFacts(moduleUrl: string): BuildFacts {
  return { function: WARPSTART_FUNCTION, profile: WARPSTART_PROFILE, sdkVersion: WARPSTART_SDK_VERSION, moduleUrl, call: getCallerIdentity };
}
