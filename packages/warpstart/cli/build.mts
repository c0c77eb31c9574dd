// `warpstart build`: the command of SAM's makefile builder (warpstart.mk), once per function of a
// `sam build`. Its Warp builds' INITs share one local AWS (emulation/local-aws/build-services.mts).
import { resolve } from "node:path";
import { buildResource } from "../builder/build.mts";
import { errorMessage } from "../core/errors.mts";
import { defineCommand, TEMPLATE_OPTION } from "../core/options.mts";
import { sayProgressOnStdout } from "../core/tools.mts";
import { sharedLocalAws } from "../emulation/local-aws/build-services.mts";

export const command = defineCommand(
  {
    name: "build",
    summary: "Builds one function or layer of a template into a folder: the command of SAM's makefile builder (BuildMethod: makefile).",
    options: { ...TEMPLATE_OPTION },
    positionals: { usage: "<LogicalId> <ARTIFACTS_DIR>", help: "the resource, and the folder to build it into", min: 2, max: 2 },
  },
  async ({ values, positionals: [logicalId, outdir] }) => {
    sayProgressOnStdout();
    try {
      console.log(await buildResource(resolve(values.template), logicalId!, resolve(outdir!), sharedLocalAws));
    } catch (error) {
      throw new Error(`build of ${logicalId} failed: ${errorMessage(error)}`, { cause: error });
    }
    return 0;
  },
);
