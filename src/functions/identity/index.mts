// The identity function. All the work happens during INIT: top-level await makes the STS call
// finish before the first invoke, so provisioned concurrency pays for it, not the caller.
import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import { type CallerIdentity, identityHandler, maskAccountIds, stsInitError } from "./identity.mts";

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
    throw stsInitError(stsEndpoint, cause);
  }
}

export const handler = identityHandler(await callerIdentity(), { variant: WARPSTART_VARIANT, sdkVersion: WARPSTART_SDK_VERSION, moduleUrl: import.meta.url });
