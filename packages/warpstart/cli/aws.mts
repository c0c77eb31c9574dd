// `warpstart aws`: the local AWS alone, in the foreground until
// Ctrl-C, with the template's resources created and the app's seeds loaded: for running a
// handler or a script against it.
import { resolve } from "node:path";
import { defineCommand, TEMPLATE_OPTION } from "../core/options.mts";
import { onEndingSignal } from "../core/processes.mts";
import { readTemplate } from "../core/template.mts";
import { startLocalAws } from "../emulation/local-aws/local-aws.mts";
import { createResources } from "../emulation/local-aws/resources.mts";
import { localAwsNotes } from "../lab/lab.mts";
import { PARAMETER_OPTIONS, parameterOverridesFrom } from "../lab/parameters.mts";

export const command = defineCommand(
  {
    name: "aws",
    summary: "The local AWS alone (moto behind TLS), with the template's resources created and the app's seeds loaded, until Ctrl-C.",
    options: {
      ...TEMPLATE_OPTION,
      port: { value: "N", help: "the port to listen on (default: a free one)", whole: [1, 65535] },
      ...PARAMETER_OPTIONS,
    },
  },
  async ({ values }) => {
    const templateFile = resolve(values.template);
    const template = readTemplate(templateFile, parameterOverridesFrom(values, templateFile));
    const aws = await startLocalAws({ port: values.port });
    onEndingSignal(() => aws.stop(), 0);
    const resources = await createResources(template, aws);
    const created = Object.entries(resources.attributes).map(([id, attribute]) => `${id} (${attribute.Ref})`);
    console.log(
      [
        `local AWS listening at ${aws.endpoint} (every service moto implements)`,
        `created: ${created.join(", ") || "nothing"}`,
        ...localAwsNotes({ resources }),
        // No function runs here: what their providers would put in the local AWS is not there.
        ...template.customResources.map(
          ({ provider, source }) =>
            `${source.name} (${source.properties.ResourceType}): its provider ${provider} gets the Create request when the lab serves it (npx warpstart lab), not here`,
        ),
        `export AWS_ENDPOINT_URL=${aws.endpoint} NODE_EXTRA_CA_CERTS=${aws.caFile} AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local`,
      ].join("\n"),
    );
    return new Promise<number>(() => {});
  },
);
