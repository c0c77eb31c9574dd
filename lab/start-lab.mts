// `npm run lab -- [flags]` (flags: see USAGE): the local Lambda lab in the foreground (like
// `sam local start-lambda` and `sam local start-api`, without Docker) until Ctrl-C: the local AWS
// with the template's resources, the Lambda API and the template's HTTP API for every built function.
import { resolve } from "node:path";
import { onEndingSignal, parseCommandLine, runCommand, UsageError, wholeNumber } from "../core/cli.mts";
import { builtTemplateOf, PROJECT_TEMPLATE } from "../core/paths.mts";
import { RUNTIME_NAMES } from "../core/runtimes.mts";
import { describeFidelity, FIDELITY_FLAGS, FIDELITY_USAGE, fidelityFrom } from "./fidelity.mts";
import { localAwsNotes, provisionFailureLines, startLab } from "./lab.mts";
import { PARAMETER_FLAGS, PARAMETER_USAGE, parameterOverridesFrom } from "./parameters.mts";
import { samBuildEach } from "./sam.mts";

const USAGE = `usage: npm run lab -- [--template FILE] [--runtime ${RUNTIME_NAMES.join("|")}] [--port N] [--api-port N] [--provisioned-concurrency N] [--concurrency-limit N] [--idle-timeout SECONDS] [--no-freeze] [--parameter-overrides "A=1 B=2"] [--network N] [--code-loading M] [--no-build] [--quiet]
${PARAMETER_USAGE}
${FIDELITY_USAGE}`;

async function main(): Promise<number> {
  const { values } = parseCommandLine({
    options: {
      template: { type: "string", default: PROJECT_TEMPLATE },
      runtime: { type: "string" },
      port: { type: "string" },
      "api-port": { type: "string" },
      "provisioned-concurrency": { type: "string" },
      "concurrency-limit": { type: "string" },
      "idle-timeout": { type: "string" },
      "no-freeze": { type: "boolean", default: false },
      "no-build": { type: "boolean", default: false },
      quiet: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
      ...FIDELITY_FLAGS,
      ...PARAMETER_FLAGS,
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const template = resolve(values.template);
  const provisioned = wholeNumber("provisioned-concurrency", values["provisioned-concurrency"], 0);
  const runtime = values.runtime;
  if (runtime !== undefined && !(RUNTIME_NAMES as string[]).includes(runtime))
    throw new UsageError(`--runtime must be one of ${RUNTIME_NAMES.join(", ")} (the template's Runtime parameter), not "${runtime}"`);
  const idleSeconds = wholeNumber("idle-timeout", values["idle-timeout"], 1);
  const parameterOverrides = {
    ...parameterOverridesFrom(values, template),
    ...(provisioned === undefined ? {} : { ProvisionedConcurrency: String(provisioned) }),
    ...(runtime === undefined ? {} : { Runtime: runtime }),
  };
  // A function whose build fails is refused, saying so; the others are served.
  let notBuilt = new Map<string, string>();
  if (!values["no-build"]) {
    console.log("== sam build");
    notBuilt = await samBuildEach({ template, quiet: true }, (line) => console.log(`== ${line}`));
  }
  const lab = await startLab({
    template: builtTemplateOf(template),
    port: wholeNumber("port", values.port, 1),
    apiPort: wholeNumber("api-port", values["api-port"], 1),
    concurrencyLimit: wholeNumber("concurrency-limit", values["concurrency-limit"], 1),
    idleTimeoutMs: idleSeconds === undefined ? undefined : idleSeconds * 1000,
    freeze: !values["no-freeze"],
    fidelity: fidelityFrom(values),
    parameterOverrides,
    notBuilt,
    onFunctionLine: values.quiet ? undefined : (fn: string, line: string) => console.log(`[${fn}] ${line}`),
  });
  const [first] = lab.lambda.functionNames;
  // What it does not serve, and whose provisioned concurrency failed: one line each.
  const notes = [...[...lab.refused].map(([name, why]) => `Not served: ${name}: ${why}`), ...provisionFailureLines(lab)];
  console.log(`Lambda API: ${lab.endpoint}   (functions: ${lab.lambda.functionNames.join(", ")})
HTTP API:   ${lab.apiUrl}
Local AWS:  ${lab.aws.endpoint}   (every service moto implements; the template's resources created, and the app's local-aws/ seeds)${localAwsNotes(
    lab.resources,
  )
    .map((line) => `\n${line}`)
    .join("")}
Runtime:    ${lab.runtime.name} (${lab.runtime.summary})
Lambda-like: ${describeFidelity(lab.fidelity)}
Provisioned concurrency: ${parameterOverrides.ProvisionedConcurrency ?? 0} per function${notes.map((line) => `\n${line}`).join("")}
Try: aws lambda invoke --endpoint-url ${lab.endpoint} --function-name ${first} --log-type Tail out.json
Ctrl-C stops everything.`);
  onEndingSignal(() => lab.stop(), 0);
  return new Promise<number>(() => {}); // runs until a signal ends it
}

runCommand(USAGE, main);
