// Jest globalSetup of the integration and slow projects: one real `sam build` of each SAM app (the
// makefile builder, as each samconfig.toml configures it) whose artifacts the tests read. A function
// whose inputs have not changed since it was last built comes from the build cache (jest.config.mjs).
import { join } from "node:path";
import { EXAMPLES_TEMPLATE, PROJECT_ROOT, PROJECT_TEMPLATE } from "../../core/paths.mts";
import { samBuild } from "../../lab/sam.mts";
import { DOCTOR_FIXTURES } from "./doctor.mts";

// The doctor's makefile app too: test files that read its build run side by side, and none rebuilds it.
export default async function globalSetup(): Promise<void> {
  for (const template of [PROJECT_TEMPLATE, EXAMPLES_TEMPLATE, join(PROJECT_ROOT, DOCTOR_FIXTURES, "makefile/template.yaml")])
    await samBuild({ template, quiet: true });
}
