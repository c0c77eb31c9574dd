// Shared by the integration tests: the functions `sam build` produced (jest globalSetup), and
// a one-shot runner against a given local STS.
import { InvokeCommand, UpdateFunctionConfigurationCommand, waitUntilFunctionUpdatedV2 } from "@aws-sdk/client-lambda";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { RUNTIMES } from "../../build/runtimes.mts";
import { VARIANTS, type VariantName } from "../../build/variants.mts";
import type { FunctionSpec } from "../../lab/execution-environment.mts";
import { parseReport } from "../../lab/emulator/log-lines.mts";
import { type Lab, labClient } from "../../lab/lab.mts";
import { eventFile } from "../../lab/events.mts";
import { BUILD_DIR } from "../../lab/paths.mts";
import { runOnce, type RunOnceResult } from "./run-once.mts";
import type { LocalSts } from "../../lab/sts/local-sts.mts";
import { templateFunctions } from "../../lab/template.mts";

export function builtFunction(logicalId: string): FunctionSpec {
  const fn = templateFunctions(join(BUILD_DIR, "template.yaml")).find((candidate) => candidate.logicalId === logicalId);
  if (!fn) throw new Error(`${logicalId} is not in ${BUILD_DIR}/template.yaml`);
  return { name: fn.logicalId, codeDir: fn.codeDir, handler: fn.handler, memoryMb: fn.memoryMb, runtime: RUNTIMES.node22 };
}

/** What a variant's response and artifact say its SDK version is (build/build.mts embeds it). */
export function expectedSdkVersion(name: string): string {
  const sdk = VARIANTS[name as VariantName].sdk;
  return sdk === "runtime" ? "provided by the runtime" : sdk === "none" ? "none" : "3.1169.0";
}

/** Invokes a lab function with LogType Tail: its function error, parsed payload, log tail and REPORT. */
export async function invokeLogged(lab: Pick<Lab, "endpoint">, functionName: string, event: unknown = {}) {
  const out = await labClient(lab, { maxAttempts: 1 }).send(new InvokeCommand({ FunctionName: functionName, LogType: "Tail", Payload: Buffer.from(JSON.stringify(event)) }));
  const log = Buffer.from(out.LogResult ?? "", "base64").toString("utf8");
  return { functionError: out.FunctionError, payload: JSON.parse(Buffer.from(out.Payload!).toString("utf8")), log, report: parseReport(log) };
}

/** A configuration change discards the function's environments: the next invoke is cold. */
export async function forceColdStart(lab: Pick<Lab, "endpoint">, functionName: string): Promise<void> {
  const client = labClient(lab, { maxAttempts: 1 });
  await client.send(new UpdateFunctionConfigurationCommand({ FunctionName: functionName, Description: `cold ${Date.now()}` }));
  await waitUntilFunctionUpdatedV2({ client, maxWaitTime: 30 }, { FunctionName: functionName });
}

/** A port nothing listens on (it was free a moment ago): connecting to it is refused. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}


export function run(spec: FunctionSpec, sts: Pick<LocalSts, "endpoint" | "caFile">): Promise<RunOnceResult> {
  return runOnce(spec, eventFile(spec.name), { stsEndpoint: sts.endpoint, caFile: sts.caFile });
}

/** Asserts success and narrows the type, with the error in the failure message. */
export function succeeded(result: RunOnceResult): Extract<RunOnceResult, { ok: true }> {
  if (!result.ok) throw new Error(`the function failed: ${result.errorType}: ${result.errorMessage}`);
  return result;
}
