// The identity function as CommonJS, written the way top-level await replaces: CommonJS has
// none, so module load (INIT) creates the client and starts the STS call without waiting for
// it, and the handler waits for it. INIT ends before STS answers, so the first invoke (even on
// a provisioned environment) waits for the rest of the call. Built as CommonJS (index.cjs: the
// template's BuildProperties Format: cjs): no top-level await, and __filename for import.meta.
import { pathToFileURL } from "node:url";
import { identityHandler, startedAtInit } from "../identity/identity.mts";
import { callerIdentity, sdkBuildFacts } from "../identity/sts.mts";

export const handler = identityHandler(startedAtInit(callerIdentity), sdkBuildFacts(pathToFileURL(__filename).href));
