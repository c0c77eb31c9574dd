// The local Lambda lab: the local AWS (with the template's resources), the Lambda API and the
// template's HTTP API for every function of the built template, on 127.0.0.1 free ports.
// stop() ends everything it started.

import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { LambdaClient } from "@aws-sdk/client-lambda";
import { errorMessage } from "../core/errors.mts";
import type { AwsCall } from "../core/init-services.mts";
import { appDirOf, builtTemplateOf, DEFAULT_TEMPLATE } from "../core/paths.mts";
import { onEndingSignal } from "../core/processes.mts";
import type { Runtime } from "../core/runtimes.mts";
import { samconfigParameterOverrides } from "../core/samconfig.mts";
import { type CustomResource, readTemplate, type TemplateFunction } from "../core/template.mts";
import { lambdaSdk } from "../core/tools.mts";
import { type EnvVars, readEnvVars } from "../emulation/env-vars.mts";
import { customResourceRequest, eventDataOf } from "../emulation/events.mts";
import { placeholdersLine, servicesOf, templateVariables } from "../emulation/function-environment.mts";
import { CUSTOM_RESOURCE_RESPONSE, type LocalAws, startLocalAws } from "../emulation/local-aws/local-aws.mts";
import { type CreatedResources, createResources, type EventData } from "../emulation/local-aws/resources.mts";
import { InvokeApi } from "./emulator/invoke-api.mts";
import { LambdaService, type LambdaServiceOptions, REGION } from "./emulator/lambda-service.mts";
import { type Fidelity, LAMBDA_FIDELITY } from "./fidelity.mts";
import { servedFunctions } from "./functions.mts";
import { HttpApi } from "./http-api.mts";

// What the bench and users reach the lab's Invoke API with: the SDK's own client (core/tools.mts
// lambdaSdk), loaded when a lab starts (a command that imports the lab but starts none, as
// `doctor --static`, installs nothing for it).
let lambdaModule: Awaited<ReturnType<typeof lambdaSdk>> | undefined;

export interface Lab {
  /** The Lambda API endpoint, for @aws-sdk/client-lambda's `endpoint`. */
  endpoint: string;
  /** The HTTP API's base URL (routes as in template.yaml, e.g. GET /optimized). */
  apiUrl: string;
  aws: LocalAws;
  /** What the lab created in the local AWS, and what it did not. */
  resources: CreatedResources;
  lambda: LambdaService;
  /** The lab's name of a template function on a runtime (core/runtimes.mts name), if it serves it there. */
  functionOn(logicalId: string, runtime: string): string | undefined;
  /** What the template's own functions run on (each its own Runtime, or the template's Runtime parameter), each once. */
  runtimes: Runtime[];
  /** The functions it does not serve, and why (a published layer, an environment it cannot evaluate); it serves the others. */
  refused: ReadonlyMap<string, string>;
  /** The functions whose environment got placeholders for values the lab cannot make, each with the line that says which and how to give them. */
  placeholders: ReadonlyMap<string, string>;
  /** The functions whose provisioned environments failed to initialize, and the runtime's error: it serves them, their alias on demand. */
  provisionFailures: ReadonlyMap<string, string>;
  /** One line per custom resource whose provider it serves: what the provider answered the Create request sent when the lab started. */
  customResources: string[];
  fidelity: Fidelity;
  stop(): Promise<void>;
}

// Code loading comes from `fidelity`, with the network, not from the service's own option.
export interface LabOptions extends Omit<LambdaServiceOptions, "onLine" | "codeLoading" | "refused"> {
  /** The built template to serve (default .aws-sam/build/template.yaml). */
  template?: string;
  /** Template parameters, as sam deploy's --parameter-overrides (default: samconfig.toml's). */
  parameterOverrides?: Record<string, string>;
  port?: number;
  apiPort?: number;
  /** Functions served beside the template's (e.g. the bench's builds in other profiles); their template environment is the template's. */
  extraFunctions?: TemplateFunction[];
  /** Serve only these of the template's functions (default: all). */
  only?: string[];
  /** Also serve every template function on these runtimes, as <LogicalId>-<runtime> (lab/functions.mts). */
  runtimes?: Runtime[];
  /** Artifacts built for one of `runtimes`, by `<LogicalId>@<runtime>`: the others run as built for their own. */
  builtOn?: ReadonlyMap<string, string>;
  /** Receives every line functions print (with the function's name). */
  onFunctionLine?: (functionName: string, line: string) => void;
  /** What of Lambda's network and code loading the lab plays (default: both, LAMBDA_FIDELITY). */
  fidelity?: Fidelity;
  /** Serve a function whose layer is a published one (an ARN) without that layer, instead of refusing it (the doctor says so). */
  withoutForeignLayers?: boolean;
  /** Values for the functions' environment variables (emulation/env-vars.mts readEnvVars; default: the app's local-aws/env-vars.json). */
  envVars?: EnvVars;
  /** Functions of the template whose build failed, each with its build's error line (lab/sam.mts samBuildEach): refused, saying so. */
  notBuilt?: ReadonlyMap<string, string>;
  /** Send each custom resource's provider the lab serves its Create request as the lab starts (default: true). */
  createCustomResources?: boolean;
}

/** How to give the lab a published layer, for the line that says it has none. */
export const PUBLISHED_LAYER_HINT =
  "put its content (the files of the layer's zip) in local-aws/layers/<its name>/ beside the template, and the lab gives it to the function";

/** Why the lab cannot give a function the layers it asks for (null: it can). */
function foreignLayersRefusal(fn: TemplateFunction): string | null {
  if (fn.foreignLayers.length === 0) return null;
  return `its layer ${fn.foreignLayers.join(" and ")} is not the template's own (an AWS::Serverless::LayerVersion): the lab cannot fetch a published layer; ${PUBLISHED_LAYER_HINT}`;
}

/** Why the lab cannot give a function its provisioned concurrency (null: it can): SAM attaches it to the alias, and without one refuses the template. */
function provisionedRefusal(fn: TemplateFunction): string | null {
  if (fn.provisionedConcurrency === 0 || fn.alias) return null;
  return "its ProvisionedConcurrencyConfig has no alias to serve (SAM refuses it: To set ProvisionedConcurrencyConfig AutoPublishALias must be defined on the function)";
}

/** One line per function whose provisioned concurrency failed (Lab.provisionFailures), for the console of a command that starts a lab. */
export const provisionFailureLines = (lab: Pick<Lab, "provisionFailures">) =>
  [...lab.provisionFailures].map(([name, why]) => `provisioned concurrency of ${name} failed to initialize, so its alias runs on demand: ${why}`);

/**
 * What the generated events of the functions served say exists, one entry per datum: the one
 * place every path that sends a generated event goes through (npm run invoke, the bench, the
 * doctor, the tests) is the lab they send it to. A function whose event cannot be generated gets
 * nothing here; sending it its event says why.
 */
function eventDataOfAll(functions: TemplateFunction[]): EventData[] {
  const data = new Map<string, EventData>();
  for (const fn of functions) {
    try {
      for (const datum of eventDataOf(fn)) data.set(JSON.stringify({ ...datum, function: undefined }), datum);
    } catch {
      // functionEvent fails the same way where the event is sent, with its own message.
    }
  }
  return [...data.values()];
}

/**
 * The lines a command shows about the local AWS: what it did not create, each problem with the
 * app's values and seeds, each function's placeholders, what each custom resource's provider answered.
 */
export function localAwsNotes({
  resources,
  placeholders = new Map(),
  customResources = [],
}: Pick<Lab, "resources"> & Partial<Pick<Lab, "placeholders" | "customResources">>): string[] {
  return [
    ...(resources.notCreated ? [resources.notCreated] : []),
    ...resources.problems,
    ...[...placeholders].map(([name, line]) => `${name}: ${line}`),
    ...customResources,
  ];
}

/** What a custom resource's provider answered CloudFormation: the last PUT to the request's ResponseURL the local AWS took, or that there was none. */
export function customResourceOutcome(provider: string, request: { RequestId?: unknown }, calls: AwsCall[]): string {
  const response = calls.findLast(
    (call) => call.operation === CUSTOM_RESOURCE_RESPONSE && (call.response as { RequestId?: unknown } | undefined)?.RequestId === request.RequestId,
  )?.response;
  if (response === undefined)
    return `${provider} sent no response to its ResponseURL: CloudFormation would wait for one until the resource times out (an hour by default)`;
  return `${provider}'s response to CloudFormation (the PUT to its ResponseURL): ${JSON.stringify(response)}`;
}

/** How long the lab's start waits for a custom resource's provider: a provider that hangs does not hold every start for its Timeout. */
const PROVIDER_WAIT_MS = 60_000;

/**
 * Each custom resource whose provider the lab serves gets the Create request CloudFormation sends as
 * it creates the stack, in template order, before anything else is invoked (what the provider puts
 * in the local AWS is there, as after a deploy); the environment it ran in is reclaimed, so the
 * provider's next invoke is a cold start. One line each says what the provider answered.
 */
async function createCustomResources(lambda: LambdaService, aws: LocalAws, customResources: CustomResource[]): Promise<string[]> {
  const served = new Set(lambda.functionNames);
  const lines: string[] = [];
  for (const { provider, source } of customResources.filter(({ provider }) => served.has(provider))) {
    const request = customResourceRequest(source);
    const resource = `${source.name} (${source.properties.ResourceType}): the Create request went to its provider, and`;
    const waiting = new AbortController();
    try {
      const result = await Promise.race([
        lambda.invoke(provider, Buffer.from(JSON.stringify(request))),
        sleep(PROVIDER_WAIT_MS, "waited" as const, { signal: waiting.signal }),
      ]);
      lines.push(
        result === "waited"
          ? `${resource} ${provider} had not answered after ${PROVIDER_WAIT_MS / 1000} s: the lab goes on without its answer (CloudFormation waits up to an hour)`
          : result.functionError
            ? `${resource} ${provider} failed: ${result.payload.toString("utf8")}`
            : `${resource} ${customResourceOutcome(provider, request, await aws.calls())}`,
      );
    } catch (error) {
      lines.push(`${resource} the lab could not invoke ${provider}: ${errorMessage(error)}`);
    } finally {
      waiting.abort();
      await lambda.reclaimIdle(provider);
    }
  }
  return lines;
}

/** A Lambda API client for the lab (any credentials do; these keep the SDK from looking for real ones). */
export function labClient(lab: Pick<Lab, "endpoint">, options: { maxAttempts?: number } = {}): LambdaClient {
  if (!lambdaModule) throw new Error("labClient: no lab was started (startLab)");
  return new lambdaModule.LambdaClient({
    endpoint: lab.endpoint,
    region: REGION,
    credentials: { accessKeyId: "warpstart", secretAccessKey: "lab" },
    ...options,
  });
}

export async function startLab(options: LabOptions = {}): Promise<Lab> {
  lambdaModule ??= await lambdaSdk();
  const templateFile = options.template ?? builtTemplateOf(DEFAULT_TEMPLATE);
  const overrides = options.parameterOverrides ?? samconfigParameterOverrides(join(appDirOf(templateFile), "samconfig.toml"));
  const template = readTemplate(templateFile, overrides);
  const envVars = options.envVars ?? readEnvVars(templateFile);
  const served = await servedFunctions(templateFile, {
    overrides,
    runtimes: options.runtimes,
    extra: options.extraFunctions,
    only: options.only,
    builtOn: options.builtOn,
  });
  const fidelity = options.fidelity ?? LAMBDA_FIDELITY;
  // One function the lab cannot serve as the template has it is refused, and says why; the others are served.
  const refused = new Map<string, string>(served.unrunnable);
  const placeholders = new Map<string, string>();
  let aws: LocalAws | undefined;
  let resources: CreatedResources;
  try {
    aws = await startLocalAws({ network: fidelity.network });
    resources = await createResources(template, aws, { eventData: eventDataOfAll(served.functions) });
    for (const fn of served.functions) {
      const notBuilt = options.notBuilt?.get(fn.logicalId);
      const why =
        fn.whyNotOnDisk ||
        (notBuilt && `its build fails: ${notBuilt}`) ||
        (options.withoutForeignLayers ? null : foreignLayersRefusal(fn)) ||
        provisionedRefusal(fn);
      if (why) {
        refused.set(fn.logicalId, why);
        continue;
      }
      try {
        const environment = templateVariables(template, fn, resources.attributes, envVars);
        fn.variables = environment.variables;
        const line = placeholdersLine(environment);
        if (line) placeholders.set(fn.logicalId, line);
      } catch (error) {
        refused.set(fn.logicalId, `its Environment cannot be evaluated here: ${errorMessage(error)}`);
      }
    }
    if (refused.size === served.functions.length + served.unrunnable.size) {
      throw new Error(`the lab can serve none of the functions: ${[...refused].map(([name, why]) => `${name}: ${why}`).join("; ")}`);
    }
  } catch (error) {
    await aws?.stop();
    served.cleanup();
    throw error;
  }
  const functions = served.functions.filter((fn) => !refused.has(fn.logicalId));
  const services = { ...servicesOf(aws), calls: (accessKeyId: string) => lab.aws.calls(accessKeyId), onNotServed: aws.onNotServed };
  const lambda = new LambdaService(functions, services, { ...options, codeLoading: fidelity.codeLoading, onLine: options.onFunctionLine, refused });
  const invokeApi = new InvokeApi(lambda);
  const httpApi = new HttpApi(lambda, functions);
  let stopped: Promise<void> | undefined;
  // lab.aws, not aws: a test may replace the local AWS (stop it, start another on the same port).
  const stop = () =>
    (stopped ??= Promise.all([invokeApi.close(), httpApi.close(), lambda.close()])
      .then(() => lab.aws.stop())
      .finally(served.cleanup));
  const lab: Lab = {
    endpoint: "",
    apiUrl: "",
    aws,
    resources,
    lambda,
    functionOn: served.nameOn,
    runtimes: served.ownRuntimes,
    fidelity,
    refused,
    placeholders,
    provisionFailures: new Map(),
    customResources: [],
    stop,
  };
  try {
    // Provisioned environments are initialized before any endpoint takes traffic.
    lab.provisionFailures = await lambda.provision();
    if (options.createCustomResources !== false) lab.customResources = await createCustomResources(lambda, aws, template.customResources);
    lab.endpoint = await invokeApi.listen(options.port);
    lab.apiUrl = await httpApi.listen(options.apiPort);
  } catch (error) {
    await stop();
    throw error;
  }
  return lab;
}

/**
 * Runs `work` against a lab started with `options` and stops the lab however the run ends: Ctrl-C,
 * SIGTERM and SIGHUP included (then exit 130). Whatever ends this process without running code,
 * its children end with it (core/processes.mts).
 */
export async function withLab<T>(options: LabOptions, work: (lab: Lab) => Promise<T>): Promise<T> {
  const lab = await startLab(options);
  const removeHandlers = onEndingSignal(() => lab.stop());
  try {
    return await work(lab);
  } finally {
    removeHandlers();
    await lab.stop();
  }
}
