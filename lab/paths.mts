// Where the lab finds the project's tools and keeps its state: one place for every path.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const VENV_BIN = join(PROJECT_ROOT, ".venv/bin");
export const NODE22 = join(PROJECT_ROOT, "tools/node22/node_modules/.bin/node");
export const STATE_DIR = join(PROJECT_ROOT, ".lab");
export const BUILD_DIR = join(PROJECT_ROOT, ".aws-sam/build");
export const EVENTS_DIR = join(PROJECT_ROOT, "events");
/** Stands in for the managed runtime's /var/runtime (its node_modules hold the SDK copy Raw uses). */
export const RUNTIME_DIR = join(PROJECT_ROOT, "lab/runtime");
export const SETUP_HINT = "run `bash scripts/setup.sh` (npm run bench and npm test run it for you)";
