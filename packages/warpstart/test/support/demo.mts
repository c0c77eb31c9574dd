// The demo app of this repository (its root: template.yaml, examples/, README.md, docs/), which the
// package's tests build, run and read as an app that installs the package.
import { join } from "node:path";
import { buildDirOf } from "../../core/paths.mts";

export const DEMO_ROOT = join(import.meta.dirname, "../../../..");
export const DEMO_TEMPLATE = join(DEMO_ROOT, "template.yaml");
/** The examples: published cold-start and keep-alive measurements' workloads (SSM, Secrets Manager, DynamoDB; docs/examples.md) as a second SAM app. */
export const EXAMPLES_TEMPLATE = join(DEMO_ROOT, "examples/template.yaml");
export const DEMO_BUILD_DIR = buildDirOf(DEMO_TEMPLATE);
