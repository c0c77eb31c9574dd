// Jest globalSetup of the integration project: one real `sam build` of each SAM app (the
// makefile builder, as each samconfig.toml configures it) whose artifacts the integration tests read.
import { EXAMPLES_TEMPLATE, PROJECT_TEMPLATE } from "../../core/paths.mts";
import { samBuild } from "../../lab/sam.mts";

export default async function globalSetup(): Promise<void> {
  for (const template of [PROJECT_TEMPLATE, EXAMPLES_TEMPLATE]) await samBuild({ template, quiet: true });
}
