// `npm run aws -- [flags]` (flags: see USAGE): the local AWS alone, in the foreground until
// Ctrl-C, with the template's resources created and the app's seeds loaded: for running a
// handler or a script against it.
import { resolve } from "node:path";
import { onEndingSignal, parseCommandLine, runCommand, wholeNumber } from "../core/cli.mts";
import { PROJECT_TEMPLATE } from "../core/paths.mts";
import { readTemplate } from "../core/template.mts";
import { startLocalAws } from "../emulation/local-aws/local-aws.mts";
import { createResources } from "../emulation/local-aws/resources.mts";
import { localAwsNotes } from "./lab.mts";
import { PARAMETER_FLAGS, PARAMETER_USAGE, parameterOverridesFrom } from "./parameters.mts";

const USAGE = `usage: npm run aws -- [--template FILE] [--port N] [--parameter-overrides "A=1 B=2"]
${PARAMETER_USAGE}`;

async function main(): Promise<number> {
  const { values } = parseCommandLine({
    options: {
      template: { type: "string", default: PROJECT_TEMPLATE },
      port: { type: "string" },
      help: { type: "boolean", default: false },
      ...PARAMETER_FLAGS,
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const templateFile = resolve(values.template);
  const template = readTemplate(templateFile, parameterOverridesFrom(values, templateFile));
  const aws = await startLocalAws({ port: wholeNumber("port", values.port, 1, 65535) });
  onEndingSignal(() => aws.stop(), 0);
  const resources = await createResources(template, aws);
  const created = Object.entries(resources.attributes).map(([id, attribute]) => `${id} (${attribute.Ref})`);
  console.log(
    [
      `local AWS listening at ${aws.endpoint} (every service moto implements)`,
      `created: ${created.join(", ") || "nothing"}`,
      ...localAwsNotes(resources),
      `export AWS_ENDPOINT_URL=${aws.endpoint} NODE_EXTRA_CA_CERTS=${aws.caFile} AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local`,
    ].join("\n"),
  );
  return new Promise<number>(() => {});
}

runCommand(USAGE, main);
