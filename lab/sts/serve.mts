// `npm run sts [-- --port N]`: runs the local STS in the foreground until Ctrl-C.
import { parseArgs } from "node:util";
import { startLocalSts } from "./local-sts.mts";

const { values } = parseArgs({ options: { port: { type: "string" } } });
try {
  const sts = await startLocalSts({ port: values.port ? Number(values.port) : undefined });
  console.log(`local STS listening at ${sts.endpoint}\nCA: ${sts.caFile}\nexport AWS_ENDPOINT_URL_STS=${sts.endpoint} NODE_EXTRA_CA_CERTS=${sts.caFile}`);
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void sts.stop().then(() => process.exit(0)));
} catch (error) {
  console.error(`error: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
}
