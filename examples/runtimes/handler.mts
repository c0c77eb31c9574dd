// The demo's identity function (one STS call during INIT), built here once per runtime.
export { handler } from "../../src/functions/identity/index.mts";
