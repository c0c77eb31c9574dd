// Jest globalSetup of the integration and slow projects: one real `sam build` of each SAM app (the
// makefile builder, as each samconfig.toml configures it) whose artifacts the tests read. A function
// whose inputs have not changed since it was last built comes from the build cache (jest.config.mjs).
import { EXAMPLES_TEMPLATE, PROJECT_TEMPLATE } from "../../core/paths.mts";
import { samBuild } from "../../lab/sam.mts";

export default async function globalSetup(): Promise<void> {
  for (const template of [PROJECT_TEMPLATE, EXAMPLES_TEMPLATE]) await samBuild({ template, quiet: true });
}
