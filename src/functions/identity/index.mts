// The identity function. All the work happens during INIT: top-level await makes the STS call
// finish before the first invoke, so provisioned concurrency pays for it, not the caller.
// sts.mts first, so the bundle evaluates the SDK before the shared pieces (as it always has).

import { identityHandler } from "./identity.mts";
import { callerIdentity, sdkBuildFacts } from "./sts.mts";

export const handler = identityHandler(await callerIdentity(), sdkBuildFacts(import.meta.url));
