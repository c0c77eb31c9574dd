// Shared by the integration tests: the functions `sam build` produced (jest globalSetup), and
// the helpers that drive the lab through its Lambda API.

import { readFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { InvokeCommand, UpdateFunctionConfigurationCommand, waitUntilFunctionUpdatedV2 } from "@aws-sdk/client-lambda";
import { functionBuild } from "../../builder/build.mts";
import { parseReport } from "../../core/lambda-logs.mts";
import { RUNTIMES } from "../../core/runtimes.mts";
import { readTemplate, type TemplateFunction } from "../../core/template.mts";
import { functionEvent } from "../../emulation/events.mts";
import type { FunctionSpec, LocalServices } from "../../emulation/function-environment.mts";
import { type LocalAws, startLocalAws } from "../../emulation/local-aws/local-aws.mts";
import { type Lab, labClient } from "../../lab/lab.mts";
import { DEMO_BUILD_DIR, DEMO_ROOT, DEMO_TEMPLATE } from "./demo.mts";
import { DEMO_FUNCTIONS } from "./demo-functions.mts";
import { type RunOnceResult, runOnce } from "./run-once.mts";

/** The project template's functions, as written (source) and as `sam build` wrote them (built). */
export const sourceFunctions = readTemplate(DEMO_TEMPLATE).functions;
export const builtFunctions = () => readTemplate(join(DEMO_BUILD_DIR, "template.yaml")).functions;
export const FUNCTION_NAMES = sourceFunctions.map((fn) => fn.logicalId);
/** The demo functions that call STS during INIT and answer with what they are: all but Hello, the empty handler (a user's function is none of them). */
export const STS_FUNCTION_NAMES = DEMO_FUNCTIONS.filter((name) => sourceFunction(name).handler !== "src/functions/hello/index.handler");

export function sourceFunction(logicalId: string): TemplateFunction {
  const fn = sourceFunctions.find((candidate) => candidate.logicalId === logicalId);
  if (!fn) throw new Error(`${logicalId} is not in template.yaml`);
  return fn;
}

/** The profile template.yaml builds a function with. */
export const profileOf = (logicalId: string) => functionBuild(readTemplate(DEMO_TEMPLATE), logicalId).profileName;

export function builtFunction(logicalId: string): FunctionSpec {
  const fn = builtFunctions().find((candidate) => candidate.logicalId === logicalId);
  if (!fn) throw new Error(`${logicalId} is not in ${DEMO_BUILD_DIR}/template.yaml`);
  return { name: fn.logicalId, codeDir: fn.codeDir, handler: fn.handler, memoryMb: fn.memoryMb, runtime: RUNTIMES.node22 };
}

/** The version every SDK client of the demo is installed at in a tree, the demo's own by default (read from its manifest). */
export function installedSdk(tree = DEMO_ROOT, client = "@aws-sdk/client-sts"): string {
  return (JSON.parse(readFileSync(join(tree, "node_modules", client, "package.json"), "utf8")) as { version: string }).version;
}

/** What a function's response and artifact say its SDK version is (builder/build.mts embeds it). */
export function expectedSdkVersion(logicalId: string): string {
  const profile = profileOf(logicalId);
  if (profile === "Raw") return "provided by the runtime";
  if (logicalId === "Floor") return "none";
  return installedSdk();
}

/** Invokes a lab function with LogType Tail: its function error, parsed payload, log tail and REPORT. */
export async function invokeLogged(lab: Pick<Lab, "endpoint">, functionName: string, event: unknown = {}) {
  const out = await labClient(lab, { maxAttempts: 1 }).send(
    new InvokeCommand({ FunctionName: functionName, LogType: "Tail", Payload: Buffer.from(JSON.stringify(event)) }),
  );
  const log = Buffer.from(out.LogResult ?? "", "base64").toString("utf8");
  return { functionError: out.FunctionError, payload: JSON.parse(Buffer.from(out.Payload!).toString("utf8")), log, report: parseReport(log) };
}

/** A project function's HTTP API event (its route), with an optional query string. */
export const eventOf = (logicalId: string, query: Record<string, string> = {}) => functionEvent(sourceFunction(logicalId), query);

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

export function run(spec: FunctionSpec, services: LocalServices): Promise<RunOnceResult> {
  return runOnce(spec, eventOf(spec.name), services);
}

/** Asserts success and narrows the type, with the error in the failure message. */
export function succeeded(result: RunOnceResult): Extract<RunOnceResult, { ok: true }> {
  if (!result.ok) throw new Error(`the function failed: ${result.errorType}: ${result.errorMessage}`);
  return result;
}

/** The endpoint a Node function of the lab calls: by name when the lab's network has a lookup. */
export const functionEndpointOf = (aws: LocalAws) => aws.byName?.endpoint ?? aws.endpoint;

/** Starts the lab's local AWS again where it was (both ports, the lab's network), after a test stopped it. */
export const restartLocalAws = (lab: Lab) => startLocalAws({ port: lab.aws.port, byNamePort: lab.aws.byName?.port, network: lab.fidelity.network });
