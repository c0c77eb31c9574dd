// Jest globalSetup of the integration and slow projects: one real `sam build` of each SAM app (the
// makefile builder, as each samconfig.toml configures it) whose artifacts the tests read. A function
// whose inputs have not changed since it was last built comes from the build cache (jest.config.mjs).
import { join } from "node:path";
import { samBuild } from "../../lab/sam.mts";
import { DEMO_ROOT, DEMO_TEMPLATE, EXAMPLES_TEMPLATE } from "./demo.mts";
import { DOCTOR_FIXTURES } from "./doctor.mts";

// The doctor's makefile app too: test files that read its build run side by side, and none rebuilds it.
export default async function globalSetup(): Promise<void> {
  for (const template of [DEMO_TEMPLATE, EXAMPLES_TEMPLATE, join(DEMO_ROOT, DOCTOR_FIXTURES, "makefile/template.yaml")])
    await samBuild({ template, quiet: true });
}
