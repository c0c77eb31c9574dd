// `warpstart lab`: the local Lambda lab in the foreground (like
// `sam local start-lambda` and `sam local start-api`, without Docker) until Ctrl-C: the local AWS
// with the template's resources, the Lambda API and the template's HTTP API for every built function.
import { resolve } from "node:path";
import { defineCommand, NO_BUILD_OPTION, type Parsed, TEMPLATE_OPTION } from "../core/options.mts";
import { builtTemplateOf } from "../core/paths.mts";
import { onEndingSignal } from "../core/processes.mts";
import { RUNTIME_NAMES } from "../core/runtimes.mts";
import { readEnvVars } from "../emulation/env-vars.mts";
import { describeFidelity, FIDELITY_OPTIONS, fidelityFrom } from "../lab/fidelity.mts";
import { localAwsNotes, provisionFailureLines, startLab } from "../lab/lab.mts";
import { ENV_VARS_OPTION, PARAMETER_OPTIONS, parameterOverridesFrom } from "../lab/parameters.mts";
import { samBuildEach } from "../lab/sam.mts";

const OPTIONS = {
  ...TEMPLATE_OPTION,
  runtime: { value: "R", oneOf: RUNTIME_NAMES, help: `the runtime every function runs on (the template's Runtime parameter): ${RUNTIME_NAMES.join(", ")}` },
  port: { value: "N", whole: [1, 65535], help: "the Lambda API's port (default: a free one)" },
  "api-port": { value: "N", whole: [1, 65535], help: "the HTTP API's port (default: a free one)" },
  "provisioned-concurrency": { value: "N", whole: [0], help: "provisioned environments per function (the template's ProvisionedConcurrency parameter)" },
  "concurrency-limit": { value: "N", whole: [1], help: "environments per function at most" },
  "idle-timeout": { value: "SECONDS", whole: [1], help: "an idle environment is shut down after this long" },
  "no-freeze": { help: "leave idle environments running (Lambda freezes them between invokes)" },
  ...NO_BUILD_OPTION,
  quiet: { help: "leave out the functions' log lines" },
  ...PARAMETER_OPTIONS,
  ...ENV_VARS_OPTION,
  ...FIDELITY_OPTIONS,
} as const;

async function main({ values }: Parsed<typeof OPTIONS>): Promise<number> {
  const template = resolve(values.template);
  const provisioned = values["provisioned-concurrency"];
  const runtime = values.runtime;
  const idleSeconds = values["idle-timeout"];
  const parameterOverrides = {
    ...parameterOverridesFrom(values, template),
    ...(provisioned === undefined ? {} : { ProvisionedConcurrency: String(provisioned) }),
    ...(runtime === undefined ? {} : { Runtime: runtime }),
  };
  const envVars = readEnvVars(template, values["env-vars"]);
  // A function whose build fails is refused, saying so; the others are served.
  let notBuilt = new Map<string, string>();
  if (!values["no-build"]) {
    console.log("== sam build");
    notBuilt = await samBuildEach({ template, quiet: true, parameterOverrides }, (line) => console.log(`== ${line}`));
  }
  const lab = await startLab({
    template: builtTemplateOf(template),
    port: values.port,
    apiPort: values["api-port"],
    concurrencyLimit: values["concurrency-limit"],
    idleTimeoutMs: idleSeconds === undefined ? undefined : idleSeconds * 1000,
    freeze: !values["no-freeze"],
    fidelity: fidelityFrom(values),
    parameterOverrides,
    envVars,
    notBuilt,
    onFunctionLine: values.quiet ? undefined : (fn: string, line: string) => console.log(`[${fn}] ${line}`),
  });
  const [first] = lab.lambda.functionNames;
  // What it does not serve, and whose provisioned concurrency failed: one line each.
  const notes = [...[...lab.refused].map(([name, why]) => `Not served: ${name}: ${why}`), ...provisionFailureLines(lab)];
  console.log(`Lambda API: ${lab.endpoint}   (functions: ${lab.lambda.functionNames.join(", ")})
HTTP API:   ${lab.apiUrl}
Local AWS:  ${lab.aws.endpoint}   (every service moto implements; the template's resources created, and the app's local-aws/ seeds)${localAwsNotes(lab)
    .map((line) => `\n${line}`)
    .join("")}
Runtime:    ${lab.runtimes.map((runtime) => `${runtime.name} (${runtime.summary})`).join("; ")}
Lambda-like: ${describeFidelity(lab.fidelity)}
Provisioned concurrency: ${parameterOverrides.ProvisionedConcurrency ?? 0} per function${notes.map((line) => `\n${line}`).join("")}
Try: aws lambda invoke --endpoint-url ${lab.endpoint} --function-name ${first} --log-type Tail out.json
Ctrl-C stops everything.`);
  onEndingSignal(() => lab.stop(), 0);
  return new Promise<number>(() => {}); // runs until a signal ends it
}

export const command = defineCommand(
  {
    name: "lab",
    summary: "The local Lambda lab until Ctrl-C, as sam local start-lambda and start-api are, without Docker: the Lambda API, the HTTP API and the local AWS.",
    options: OPTIONS,
  },
  main,
);
