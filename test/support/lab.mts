// Shared by the integration tests: the functions `sam build` produced (jest globalSetup), and
// a one-shot runner against a given local STS.
import { join } from "node:path";
import type { FunctionSpec } from "../../lab/execution-environment.mts";
import { BUILD_DIR, EVENTS_DIR } from "../../lab/paths.mts";
import { runOnce, type RunOnceResult } from "../../lab/run-once.mts";
import type { LocalSts } from "../../lab/sts/local-sts.mts";
import { templateFunctions } from "../../lab/template.mts";

export function builtFunction(logicalId: string): FunctionSpec {
  const fn = templateFunctions(join(BUILD_DIR, "template.yaml")).find((candidate) => candidate.logicalId === logicalId);
  if (!fn) throw new Error(`${logicalId} is not in ${BUILD_DIR}/template.yaml`);
  return { name: fn.logicalId, codeDir: fn.codeDir, handler: fn.handler, memoryMb: fn.memoryMb };
}

export const eventFile = (name: string) => join(EVENTS_DIR, `${name.toLowerCase()}.json`);

export function run(spec: FunctionSpec, sts: Pick<LocalSts, "endpoint" | "caFile">): Promise<RunOnceResult> {
  return runOnce(spec, eventFile(spec.name), { stsEndpoint: sts.endpoint, caFile: sts.caFile });
}

/** Asserts success and narrows the type, with the error in the failure message. */
export function succeeded(result: RunOnceResult): Extract<RunOnceResult, { ok: true }> {
  if (!result.ok) throw new Error(`the function failed: ${result.errorType}: ${result.errorMessage}`);
  return result;
}
