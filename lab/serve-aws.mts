// `npm run aws -- [flags]` (flags: see USAGE): the local AWS alone, in the foreground until
// Ctrl-C, with the template's resources created: for running a handler or a script against it.
import { resolve } from "node:path";
import { onEndingSignal, parseCommandLine, runCommand, wholeNumber } from "../core/cli.mts";
import { PROJECT_TEMPLATE } from "../core/paths.mts";
import { readTemplate } from "../core/template.mts";
import { startLocalAws } from "../emulation/local-aws/local-aws.mts";
import { createResources } from "../emulation/local-aws/resources.mts";

const USAGE = "usage: npm run aws -- [--template FILE] [--port N]";

async function main(): Promise<number> {
  const { values } = parseCommandLine({
    options: { template: { type: "string", default: PROJECT_TEMPLATE }, port: { type: "string" }, help: { type: "boolean", default: false } },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const template = readTemplate(resolve(values.template));
  const aws = await startLocalAws({ port: wholeNumber("port", values.port, 1, 65535) });
  onEndingSignal(() => aws.stop(), 0);
  const { attributes, notCreated } = await createResources(template, aws);
  console.log(`local AWS listening at ${aws.endpoint} (every service moto implements)
created: ${
    Object.entries(attributes)
      .map(([id, attribute]) => `${id} (${attribute.Ref})`)
      .join(", ") || "nothing"
  }${notCreated ? `\n${notCreated}` : ""}
export AWS_ENDPOINT_URL=${aws.endpoint} NODE_EXTRA_CA_CERTS=${aws.caFile} AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local`);
  return new Promise<number>(() => {});
}

runCommand(USAGE, main);
