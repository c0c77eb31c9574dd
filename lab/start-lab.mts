// `npm run lab`: the local Lambda lab in the foreground (like `sam local start-lambda`, without
// Docker) until Ctrl-C: the local STS and the Lambda API for every built function.
import { parseArgs } from "node:util";
import { startLab } from "./lab.mts";
import { samBuild } from "./sam.mts";

const { values } = parseArgs({ options: { port: { type: "string" }, "no-build": { type: "boolean", default: false }, quiet: { type: "boolean", default: false } } });
try {
  if (!values["no-build"]) {
    console.log("== sam build");
    await samBuild({ quiet: true });
  }
  const lab = await startLab({
    port: values.port ? Number(values.port) : undefined,
    onFunctionLine: values.quiet ? undefined : (fn, line) => console.log(`[${fn}] ${line}`),
  });
  console.log(`Lambda API: ${lab.endpoint}   (functions: ${lab.lambda.functionNames.join(", ")})
Local STS:  ${lab.sts.endpoint}
Try: aws lambda invoke --endpoint-url ${lab.endpoint} --function-name Optimized --log-type Tail out.json
Ctrl-C stops everything.`);
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void lab.stop().then(() => process.exit(0)));
} catch (error) {
  console.error(`error: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
}
