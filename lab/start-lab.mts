// `npm run lab`: the local Lambda lab in the foreground (like `sam local start-lambda` and
// `sam local start-api`, without Docker) until Ctrl-C: the local STS, the Lambda API and the
// template's HTTP API for every built function.
import { parseArgs } from "node:util";
import { samconfigParameterOverrides, startLab } from "./lab.mts";
import { RUNTIME_NAMES } from "../build/runtimes.mts";
import { samBuild } from "./sam.mts";

const USAGE = `usage: npm run lab -- [--runtime ${RUNTIME_NAMES.join("|")}] [--port N] [--api-port N] [--provisioned-concurrency N] [--concurrency-limit N] [--idle-timeout SECONDS] [--no-freeze] [--no-build] [--quiet]`;
const { values } = parseArgs({
  options: {
    runtime: { type: "string" },
    port: { type: "string" },
    "api-port": { type: "string" },
    "provisioned-concurrency": { type: "string" },
    "concurrency-limit": { type: "string" },
    "idle-timeout": { type: "string" },
    "no-freeze": { type: "boolean", default: false },
    "no-build": { type: "boolean", default: false },
    quiet: { type: "boolean", default: false },
  },
});

/** A whole number flag, or undefined when absent; exits with the usage on anything else. */
function count(flag: keyof typeof values, min: number): number | undefined {
  const raw = values[flag];
  if (raw === undefined || typeof raw === "boolean") return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    console.error(`error: --${flag} must be a whole number from ${min}, not "${raw}"\n${USAGE}`);
    process.exit(2);
  }
  return value;
}

try {
  const provisioned = count("provisioned-concurrency", 0);
  const runtime = values.runtime;
  if (runtime !== undefined && !(RUNTIME_NAMES as string[]).includes(runtime)) {
    console.error(`error: --runtime must be one of ${RUNTIME_NAMES.join(", ")} (the template's Runtime parameter), not "${runtime}"\n${USAGE}`);
    process.exit(2);
  }
  const idleSeconds = count("idle-timeout", 1);
  const options = {
    port: count("port", 1),
    apiPort: count("api-port", 1),
    concurrencyLimit: count("concurrency-limit", 1),
    idleTimeoutMs: idleSeconds === undefined ? undefined : idleSeconds * 1000,
    freeze: !values["no-freeze"],
    parameterOverrides: {
      ...samconfigParameterOverrides(),
      ...(provisioned === undefined ? {} : { ProvisionedConcurrency: String(provisioned) }),
      ...(runtime === undefined ? {} : { Runtime: runtime }),
    },
    onFunctionLine: values.quiet ? undefined : (fn: string, line: string) => console.log(`[${fn}] ${line}`),
  };
  if (!values["no-build"]) {
    console.log("== sam build");
    await samBuild({ quiet: true });
  }
  const lab = await startLab(options);
  console.log(`Lambda API: ${lab.endpoint}   (functions: ${lab.lambda.functionNames.join(", ")})
HTTP API:   ${lab.apiUrl}   (e.g. curl ${lab.apiUrl}/warp)
Local STS:  ${lab.sts.endpoint}
Runtime:    ${lab.runtime.name} (${lab.runtime.summary})
Provisioned concurrency: ${options.parameterOverrides.ProvisionedConcurrency ?? 0} per function
Try: aws lambda invoke --endpoint-url ${lab.endpoint} --function-name Optimized --log-type Tail out.json
Ctrl-C stops everything.`);
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void lab.stop().then(() => process.exit(0)));
} catch (error) {
  console.error(`error: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
}
