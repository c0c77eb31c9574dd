// The local Lambda lab: the local STS, the Lambda API and the template's HTTP API for every
// function of the built template, on 127.0.0.1 free ports. stop() ends everything it started.
import { LambdaClient } from "@aws-sdk/client-lambda";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HttpApi } from "./http-api.mts";
import { InvokeApi } from "./emulator/invoke-api.mts";
import { LambdaService, type LambdaServiceOptions, REGION } from "./emulator/lambda-service.mts";
import type { Runtime } from "../build/runtimes.mts";
import { servedFunctions } from "./functions.mts";
import { BUILD_DIR, PROJECT_ROOT } from "./paths.mts";
import { type LocalSts, startLocalSts } from "./sts/local-sts.mts";
import type { TemplateFunction } from "./template.mts";

export interface Lab {
  /** The Lambda API endpoint, for @aws-sdk/client-lambda's `endpoint`. */
  endpoint: string;
  /** The HTTP API's base URL (routes as in template.yaml, e.g. GET /optimized). */
  apiUrl: string;
  sts: LocalSts;
  lambda: LambdaService;
  /** The lab's name of a template function on a runtime (build/runtimes.mts name), if it serves it there. */
  functionOn(logicalId: string, runtime: string): string | undefined;
  /** What the template's own functions run on (its Runtime parameter). */
  runtime: Runtime;
  stop(): Promise<void>;
}

export interface LabOptions extends Omit<LambdaServiceOptions, "onLine"> {
  /** The built template to serve (default .aws-sam/build/template.yaml). */
  template?: string;
  /** Template parameters, as sam deploy's --parameter-overrides (default: samconfig.toml's). */
  parameterOverrides?: Record<string, string>;
  port?: number;
  apiPort?: number;
  /** Functions served beside the template's (e.g. the bench's Warp ablations). */
  extraFunctions?: TemplateFunction[];
  /** Also serve every template function on these runtimes, as <LogicalId>-<runtime> (lab/functions.mts). */
  runtimes?: Runtime[];
  /** Receives every line functions print (with the function's name). */
  onFunctionLine?: (functionName: string, line: string) => void;
}

/** A Lambda API client for the lab (any credentials do; these keep the SDK from looking for real ones). */
export function labClient(lab: Pick<Lab, "endpoint">, options: { maxAttempts?: number } = {}): LambdaClient {
  return new LambdaClient({ endpoint: lab.endpoint, region: REGION, credentials: { accessKeyId: "warpstart", secretAccessKey: "lab" }, ...options });
}

/** parameter_overrides of samconfig.toml's [default.deploy.parameters], as the lab's defaults. */
export function samconfigParameterOverrides(file = join(PROJECT_ROOT, "samconfig.toml")): Record<string, string> {
  const line = /^parameter_overrides\s*=\s*"([^"]*)"/m.exec(readFileSync(file, "utf8"))?.[1] ?? "";
  return Object.fromEntries(line.split(/\s+/).filter(Boolean).map((pair) => pair.split("=", 2) as [string, string]));
}

export async function startLab(options: LabOptions = {}): Promise<Lab> {
  const overrides = options.parameterOverrides ?? samconfigParameterOverrides();
  const served = await servedFunctions(options.template ?? join(BUILD_DIR, "template.yaml"), overrides, options.runtimes, options.extraFunctions);
  const { functions } = served;
  let sts: LocalSts;
  try {
    sts = await startLocalSts();
  } catch (error) {
    served.cleanup();
    throw error;
  }
  const lambda = new LambdaService(functions, { stsEndpoint: sts.endpoint, caFile: sts.caFile }, { ...options, onLine: options.onFunctionLine });
  const invokeApi = new InvokeApi(lambda);
  const httpApi = new HttpApi(lambda, functions);
  let stopped: Promise<void> | undefined;
  const stop = () => (stopped ??= Promise.all([invokeApi.close(), httpApi.close(), lambda.close()]).then(() => lab.sts.stop()).finally(served.cleanup));
  const lab: Lab = { endpoint: "", apiUrl: "", sts, lambda, functionOn: served.nameOn, runtime: functions[0]!.runsOn, stop };
  try {
    // Provisioned environments are initialized before any endpoint takes traffic.
    await lambda.provision();
    lab.endpoint = await invokeApi.listen(options.port);
    lab.apiUrl = await httpApi.listen(options.apiPort);
  } catch (error) {
    await stop();
    throw error;
  }
  // lab.sts, not sts, in stop(): a test may replace the STS (stop it, start another on the same port).
  return lab;
}

/**
 * Runs `work` against a lab started with `options` and stops the lab however the run ends, Ctrl-C
 * and SIGTERM included (then exit 130): no function process or STS outlives a run.
 */
export async function withLab<T>(options: LabOptions, work: (lab: Lab) => Promise<T>): Promise<T> {
  const lab = await startLab(options);
  const interrupted = () => void lab.stop().then(() => process.exit(130));
  process.once("SIGINT", interrupted).once("SIGTERM", interrupted);
  try {
    return await work(lab);
  } finally {
    process.off("SIGINT", interrupted).off("SIGTERM", interrupted);
    await lab.stop();
  }
}
