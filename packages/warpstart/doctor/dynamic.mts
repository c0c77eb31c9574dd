// The doctor's dynamic checks: one traced cold start of each function in the lab
// (lab/init-trace.mts), given its trigger's event. Its INIT split, the builtins its handler's
// import loaded and the AWS calls INIT made go into the function's report; an INIT that fails is
// init-error with the runtime's error, a handler that fails once INIT is done is invoke-error
// (the event may be the doctor's fault, not the function's), and a rejected code cache is a
// finding even where the build looked right.
import { errorMessage } from "../core/errors.mts";
import { ColdStartFailure, HEAVY_BUILTINS, traceColdStart } from "../lab/init-trace.mts";
import type { Lab } from "../lab/lab.mts";
import type { BuiltFunction } from "./artifact.mts";
import { type CheckId, type Examined, finding, fixFor } from "./checks.mts";
import type { Finding, FunctionReport } from "./findings.mts";
import { STAND_IN_RUNTIME, whyStandIn } from "./lambda-runtimes.mts";

/** A finding of the trace: found after the fixes were built, so it says why it is not measured. */
function traced(id: CheckId, message: string, built: BuiltFunction): Finding {
  const found = finding(id, message);
  const fix = fixFor(id, built);
  found.whyNotMeasured = "why" in fix ? fix.why : "found by the lab's cold start, after the fixes were built: run the doctor again once it is fixed";
  return found;
}

/**
 * The lab's AWS is reached through AWS_ENDPOINT_URL, which the v2 SDK (aws-sdk) does not read: its
 * calls go to an amazonaws.com host the lab refuses. A failure that names one says so.
 */
const withLabLimit = (message: string) =>
  /\bamazonaws\.com\b/.test(message)
    ? `${message} (the lab refused a connection to AWS itself: it serves its local AWS to clients that read AWS_ENDPOINT_URL, as the SDK v3 does and the v2 aws-sdk does not; on Lambda this call reaches AWS)`
    : message;

/** A failure of the traced cold start leads the findings, after only the runtime's deprecation: the first thing a user must know. */
function firstAfterRuntime(report: FunctionReport, found: Finding): void {
  const runtimeFirst = report.findings[0]?.id === "deprecated-runtime" ? 1 : 0;
  report.findings.splice(runtimeFirst, 0, found);
}

/**
 * nodejs20.x's and nodejs22.x's bootstraps pass --no-experimental-require-module: require() of an
 * ES module fails there (ERR_REQUIRE_ESM), where their Node itself would load it. Said as such,
 * naming the runtime the lab ran it on (its stand-in's, for one the lab does not run).
 */
function withRuntimeBreak(message: string, built: BuiltFunction): string {
  if (!/ERR_REQUIRE_ESM|require\(\) of ES Module/.test(message)) return message;
  const ranOn = whyStandIn(built.fn.runtime) ? STAND_IN_RUNTIME : built.fn.runtime;
  return `${ranOn}'s bootstrap disables require() of ES modules (--no-experimental-require-module), and its code requires one: import it instead, or bundle it (${message})`;
}

export async function traceInLab(lab: Lab, { built, report }: Examined): Promise<void> {
  try {
    const { codeCacheRejected, ...trace } = await traceColdStart(lab, lab.lambda.served(report.name));
    report.init = { ...trace, heavyBuiltins: trace.builtins.filter((name) => HEAVY_BUILTINS.includes(name)) };
    report.whyNotTraced = null;
    report.passed.push("init-error", "invoke-error");
    const staticMismatch = report.findings.some((found) => found.id === "code-cache-mismatch");
    if (codeCacheRejected && !staticMismatch) {
      report.passed = report.passed.filter((id) => id !== "code-cache-mismatch");
      report.findings.push(
        traced("code-cache-mismatch", "its code cache was rejected in the lab's cold start (its log says so): INIT compiled the SDK", built),
      );
    }
  } catch (error) {
    if (!(error instanceof ColdStartFailure)) {
      report.whyNotTraced = errorMessage(error);
      return;
    }
    if (error.phase === "invoke") {
      report.whyNotTraced = "its first invoke failed";
      report.passed.push("init-error");
      firstAfterRuntime(report, traced("invoke-error", withLabLimit(error.message), built));
      return;
    }
    if (built.fn.foreignLayers.length > 0) {
      // Without its layer, an INIT that fails says nothing of the function as Lambda runs it.
      report.whyNotTraced = `its INIT fails without its layer, which the lab cannot fetch: ${error.message}`;
      return;
    }
    report.whyNotTraced = "its INIT failed";
    firstAfterRuntime(report, traced("init-error", withRuntimeBreak(withLabLimit(error.message), built), built));
  }
}
