// The as-lambda app's Isolation functions as test/integration/as-lambda.test.mts and
// test/slow/as-lambda.test.mts run them: the lines a user sees of their failures.
import { dirname, join, relative } from "node:path";
import { NODE22, PACKAGE_ROOT, VENV_BIN } from "../../core/paths.mts";
import { DEMO_ROOT } from "./demo.mts";

export const TEMPLATE = relative(DEMO_ROOT, join(PACKAGE_ROOT, "test/fixtures/sam-apps/as-lambda/template.yaml"));
/** IsolationUndeclaredImport's build error line (SAM's, with the project's builder's), as far as it is ours to pin. */
export const BUILD_ERROR = `CustomMakeBuilder:MakeBuild - Make Failed: error: build of IsolationUndeclaredImport failed: IsolationUndeclaredImport: esbuild cannot bundle it: src/functions/isolation-undeclared-import/index.mts:2: Could not resolve "dayjs"`;
/** The console's line for IsolationInitThrows's provisioned concurrency. */
export const PROVISION_FAILS =
  "provisioned concurrency of IsolationInitThrows failed to initialize, so its alias runs on demand: Runtime.InitError: Error: UPLOADS_BUCKET is not set";
/** As `npm run` runs a command: the project's Node and SAM CLI first on PATH. */
export const TOOLS_ENV = { ...process.env, PATH: `${dirname(NODE22)}:${VENV_BIN}:${process.env.PATH}`, SAM_CLI_TELEMETRY: "0" };
