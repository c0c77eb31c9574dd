// Every Node.js runtime Lambda has had, with its lifecycle: the dates of AWS's runtime deprecation
// table as cfn-lint's data records them (aws-cloudformation/cfn-lint
// src/cfnlint/data/AdditionalSpecs/LmbdRuntimeLifecycle.json at afd7953b, 2026-06-02: AWS extended
// nodejs16.x to nodejs20.x's blocks to 2027-02-01 and 2027-03-03; docs/doctor.md#runtimes). The doctor examines a function on any of them; one past
// its deprecation date is a finding, and the lab, which runs nodejs18.x to nodejs24.x, runs the
// older ones on nodejs22.x: the runtime the finding's fix moves them to.
import { CUSTOM_RUNTIMES, managedRuntimeOf, RUNTIMES, type Runtime } from "../core/runtimes.mts";
import type { TemplateFunction } from "../core/template.mts";

interface Lifecycle {
  /** No more security patches (YYYY-MM-DD). */
  deprecated: string;
  /** No new function on it. */
  blockCreate: string;
  /** No more updates to a function on it. */
  blockUpdate: string;
}

const LIFECYCLES: Record<string, Lifecycle> = {
  nodejs: { deprecated: "2016-08-30", blockCreate: "2016-09-30", blockUpdate: "2016-10-31" },
  "nodejs4.3": { deprecated: "2020-03-05", blockCreate: "2020-02-03", blockUpdate: "2020-03-05" },
  "nodejs4.3-edge": { deprecated: "2020-03-05", blockCreate: "2019-03-31", blockUpdate: "2019-04-30" },
  "nodejs6.10": { deprecated: "2019-08-12", blockCreate: "2019-07-12", blockUpdate: "2019-08-12" },
  "nodejs8.10": { deprecated: "2020-03-06", blockCreate: "2020-02-04", blockUpdate: "2020-03-06" },
  "nodejs10.x": { deprecated: "2021-07-30", blockCreate: "2021-07-30", blockUpdate: "2022-02-14" },
  "nodejs12.x": { deprecated: "2023-03-31", blockCreate: "2023-03-31", blockUpdate: "2023-04-30" },
  "nodejs14.x": { deprecated: "2023-12-04", blockCreate: "2024-01-09", blockUpdate: "2027-03-03" },
  "nodejs16.x": { deprecated: "2024-06-12", blockCreate: "2027-02-01", blockUpdate: "2027-03-03" },
  "nodejs18.x": { deprecated: "2025-09-01", blockCreate: "2027-02-01", blockUpdate: "2027-03-03" },
  "nodejs20.x": { deprecated: "2026-04-30", blockCreate: "2027-02-01", blockUpdate: "2027-03-03" },
  "nodejs22.x": { deprecated: "2027-04-30", blockCreate: "2027-06-01", blockUpdate: "2027-07-01" },
  "nodejs24.x": { deprecated: "2028-04-30", blockCreate: "2028-06-01", blockUpdate: "2028-07-01" },
};

const LAMBDA_NODE_RUNTIMES = Object.keys(LIFECYCLES);

/** Where the doctor builds and runs a function whose runtime the lab does not run: this template's runtime. */
export const STAND_IN_RUNTIME = RUNTIMES.node22.lambdaRuntime;

/** The runtimes SAM CLI refuses to build (samcli/lib/build/constants.py, DEPRECATED_RUNTIMES). */
const SAM_CANNOT_BUILD = new Set(["nodejs", "nodejs4.3", "nodejs4.3-edge", "nodejs6.10", "nodejs8.10", "nodejs10.x", "nodejs12.x", "nodejs14.x"]);

/** Whether a runtime identifier is one of Lambda's Node.js runtimes. */
const isLambdaNodeRuntime = (runtime: string | undefined) => runtime !== undefined && runtime in LIFECYCLES;

/** Whether the lab runs a Lambda Node.js runtime as it is (else on STAND_IN_RUNTIME). */
export const labRuns = (runtime: string | undefined) => managedRuntimeOf(runtime) !== undefined;

/** Why a function on this runtime is built and run on STAND_IN_RUNTIME, or null when it is not. */
export function whyStandIn(runtime: string | undefined): string | null {
  if (runtime === undefined || !isLambdaNodeRuntime(runtime) || labRuns(runtime)) return null;
  const building = SAM_CANNOT_BUILD.has(runtime) ? `SAM CLI no longer builds ${runtime} and ` : "";
  const runs = (Object.values(RUNTIMES) as Runtime[]).flatMap((candidate) => (candidate.kind === "managed" ? [candidate.lambdaRuntime] : []));
  return `built, traced and measured on ${STAND_IN_RUNTIME}: ${building}the lab runs ${runs.join(", ")}, not ${runtime}`;
}

/** Where the dates come from, for the line that gives them. */
export const LIFECYCLE_SOURCE = "Lambda's runtime table, as cfn-lint's data of 2026-06-02 records it";

/** The runtime's lifecycle as of `today` (YYYY-MM-DD): null while it is supported. */
export function deprecationOf(runtime: string | undefined, today: string): string | null {
  const lifecycle = runtime === undefined ? undefined : LIFECYCLES[runtime];
  if (!lifecycle || today < lifecycle.deprecated) return null;
  const blocks = [
    `function creation ${today < lifecycle.blockCreate ? "blocked from" : "blocked since"} ${lifecycle.blockCreate}`,
    `updates ${today < lifecycle.blockUpdate ? "blocked from" : "blocked since"} ${lifecycle.blockUpdate}`,
  ];
  return `${runtime} is deprecated since ${lifecycle.deprecated} (no more security patches; ${blocks.join(", ")})`;
}

/** This project's custom runtime a function runs on (provided.al2023 with its runtime's layer), if any. */
const customRuntimeOf = (fn: TemplateFunction) =>
  fn.runtime === "provided.al2023" ? CUSTOM_RUNTIMES.find((runtime) => fn.layers.some((layer) => layer.logicalId === runtime.layer)) : undefined;

/** What a function runs on, as the report names it. */
export function runtimeLabel(fn: TemplateFunction): string {
  const custom = customRuntimeOf(fn);
  return custom ? `${custom.name} (${fn.runtime})` : (fn.runtime ?? "none");
}

/** Why the doctor does not examine a function (null: it does). */
export function whyNotExamined(fn: TemplateFunction): string | null {
  if (fn.whyNotOnDisk && (isLambdaNodeRuntime(fn.runtime) || customRuntimeOf(fn))) return fn.whyNotOnDisk;
  if (isLambdaNodeRuntime(fn.runtime) || customRuntimeOf(fn)) return null;
  if (fn.runtime === undefined) return "it has no Runtime (a container image): the doctor examines zip functions";
  const examined = `the doctor examines Lambda's Node.js runtimes (${LAMBDA_NODE_RUNTIMES.at(-1)} back to ${LAMBDA_NODE_RUNTIMES[0]}) and this project's ${CUSTOM_RUNTIMES.map((runtime) => runtime.name).join(" and ")} runtimes`;
  if (fn.runtime.startsWith("provided")) return `a custom runtime without this project's runtime layer: ${examined}`;
  if (fn.runtime.startsWith("nodejs")) return `${fn.runtime} is not a runtime Lambda has had: ${examined}`;
  return `${fn.runtime} is not Node.js: ${examined}`;
}
