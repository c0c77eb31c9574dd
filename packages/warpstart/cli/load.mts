// `warpstart load`:
// Artillery against the template's HTTP API, end to end: one scenario per GET route of the
// template, config.yaml's phases (scaled to --duration) and thresholds. Locally: for provisioned
// concurrency off and on, start the lab, run Artillery, stop the lab. With --stack: once, against
// the deployed stack's ApiUrl, as deployed. Prints a summary per function and writes
// DIR/summary.json (and Artillery's own report per run).

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { stripVTControlCharacters } from "node:util";
import type { CloudFormationClient } from "@aws-sdk/client-cloudformation";
import { parse, stringify } from "yaml";
import { defineCommand, NO_BUILD_OPTION, type Parsed, TEMPLATE_OPTION, UsageError } from "../core/options.mts";
import { appDirOf, builtTemplateOf, PACKAGE_ROOT, setupHint, timestamp, toolPath } from "../core/paths.mts";
import { spawnOwned } from "../core/processes.mts";
import { stackOutputs } from "../core/stacks.mts";
import { renderTable } from "../core/tables.mts";
import { readTemplate } from "../core/template.mts";
import { installPart } from "../core/tools.mts";
import { FIDELITY_OPTIONS, fidelityFrom } from "../lab/fidelity.mts";
import { provisionFailureLines, withLab } from "../lab/lab.mts";
import { PARAMETER_OPTIONS, parameterOverridesFrom } from "../lab/parameters.mts";
import { samBuildEach } from "../lab/sam.mts";

const LOAD_DIR = join(PACKAGE_ROOT, "load_test");
const ARTILLERY = toolPath("load_test/node_modules/.bin/artillery");
const MAX_DURATION_S = 600;
const OPTIONS = {
  ...TEMPLATE_OPTION,
  duration: { value: "SECONDS", whole: [3, MAX_DURATION_S], default: "40", help: "how long Artillery runs (config.yaml's phases, scaled)" },
  provisioned: { value: "N", whole: [1, 10], default: "2", help: "provisioned environments per function in the run with provisioned concurrency" },
  "max-p99": { value: "MS|off", help: "the p99 latency a run must stay under (default: config.yaml's)" },
  out: { value: "DIR", help: "where summary.json and Artillery's reports go (default: results/load-<date-time>)" },
  stack: { value: "NAME", help: "run against a deployed stack's ApiUrl instead of the local lab" },
  region: { value: "R", help: "the stack's region (default: AWS_REGION or your AWS config)" },
  ...NO_BUILD_OPTION,
  ...PARAMETER_OPTIONS,
  ...FIDELITY_OPTIONS,
} as const;

interface FunctionSummary {
  requests: number;
  errors: number;
  coldStarts: number;
  initializationTypes: Record<string, number>;
  latencyMs: { p50: number | null; p95: number | null; p99: number | null };
  firstRequestMs: { n: number; p50: number | null; p99: number | null };
}

/** One of config.yaml's `ensure` checks as Artillery judged it. */
export interface EnsureResult {
  expression: string;
  passed: boolean;
}

export interface RunSummary {
  provisionedConcurrency: number | "as deployed";
  target: string;
  thresholdsPassed: boolean;
  checks: EnsureResult[];
  functions: Record<string, FunctionSummary>;
}

function options({ values }: Parsed<typeof OPTIONS>) {
  const maxP99 = values["max-p99"];
  if (maxP99 !== undefined && maxP99 !== "off" && !(Number.isInteger(Number(maxP99)) && Number(maxP99) > 0))
    throw new UsageError(`--max-p99 must be a whole number of milliseconds or "off", not "${maxP99}"`);
  return {
    ...values,
    maxP99: maxP99 === "off" ? ("off" as const) : maxP99 === undefined ? undefined : Number(maxP99),
    fidelity: fidelityFrom(values),
    parameterOverrides: parameterOverridesFrom(values, resolve(values.template)),
    out: resolve(values.out ?? join("results", `load-${timestamp()}`)),
  };
}

type Scenario = { name: string; flow: Array<{ get: { url: string; name: string; afterResponse: string } }> };

/** The parts of an Artillery script this runner reads or changes (config.yaml, with scenarios added). */
export interface ArtilleryScript {
  config: {
    phases: Array<{ duration: number }>;
    ensure: { thresholds: Array<Record<string, number>>; conditions: Array<{ expression: string; strict: boolean }> };
    processor: string;
    [setting: string]: unknown;
  };
  scenarios: Scenario[];
}

/** Artillery's JSON report: the aggregate counters and summaries this runner reads. */
type ArtilleryReport = Parameters<typeof summarize>[0];

/** A template's GET routes, one Artillery scenario each, named after the function. */
export function routeScenarios(template: string): Scenario[] {
  return readTemplate(template).functions.flatMap((fn) =>
    fn.httpPath ? [{ name: fn.logicalId, flow: [{ get: { url: fn.httpPath, name: fn.logicalId, afterResponse: "countColdStarts" } }] }] : [],
  );
}

/** The Artillery script a load runs: the app's own load_test/config.yaml beside its template, else the package's. */
export const scenarioFileOf = (template: string) =>
  [join(appDirOf(template), "load_test/config.yaml"), join(LOAD_DIR, "config.yaml")].find((file) => existsSync(file))!;

/**
 * The app's config.yaml (scenarioFileOf) with a scenario per GET route of `template`, its phases scaled to last `seconds` in
 * all, keeping their proportions, and its p99 threshold replaced by `maxP99` (milliseconds) or
 * dropped ("off"); the no-failed-request condition always stays.
 */
export function scaledConfig(template: string, seconds: number, maxP99?: number | "off"): ArtilleryScript {
  const config = parse(readFileSync(scenarioFileOf(template), "utf8")) as ArtilleryScript;
  config.scenarios = routeScenarios(template);
  if (config.scenarios.length === 0) throw new UsageError(`${template} has no function with an HttpApi GET route to load`);
  const { phases } = config.config;
  const total = phases.reduce((sum, phase) => sum + phase.duration, 0);
  for (const phase of phases) phase.duration = Math.max(1, Math.round((phase.duration * seconds) / total));
  if (maxP99 !== undefined) {
    const others = config.config.ensure.thresholds.filter((threshold) => !("http.response_time.p99" in threshold));
    config.config.ensure.thresholds = maxP99 === "off" ? others : [...others, { "http.response_time.p99": maxP99 }];
  }
  config.config.processor = join(LOAD_DIR, "processor.cjs");
  return config;
}

/** Per function, from Artillery's JSON report (counters and summaries of its aggregate). */
export function summarize(report: {
  aggregate: { counters: Record<string, number>; summaries: Record<string, Record<string, number>> };
}): Record<string, FunctionSummary> {
  const { counters, summaries } = report.aggregate;
  const functions = Object.keys(counters).flatMap((key) => /^vusers\.created_by_name\.(.+)$/.exec(key)?.[1] ?? []);
  return Object.fromEntries(
    functions.sort().map((name) => {
      const ok = Object.entries(counters)
        .filter(([key]) => new RegExp(`^plugins\\.metrics-by-endpoint\\.${name}\\.codes\\.2\\d\\d$`).test(key))
        .reduce((sum, [, value]) => sum + value, 0);
      const created = counters[`vusers.created_by_name.${name}`] ?? 0;
      const latency = summaries[`warpstart.${name}.response_ms`];
      const first = summaries[`warpstart.${name}.first_request_ms`];
      const initializationTypes = Object.fromEntries(
        Object.entries(counters).flatMap(([key, value]) => {
          const type = new RegExp(`^warpstart\\.${name}\\.init_type\\.(.+)$`).exec(key)?.[1];
          return type ? [[type, value]] : [];
        }),
      );
      return [
        name,
        {
          requests: created,
          errors: created - ok,
          coldStarts: counters[`warpstart.${name}.cold_starts`] ?? 0,
          initializationTypes,
          latencyMs: { p50: latency?.p50 ?? null, p95: latency?.p95 ?? null, p99: latency?.p99 ?? null },
          firstRequestMs: { n: first?.count ?? 0, p50: first?.p50 ?? null, p99: first?.p99 ?? null },
        },
      ];
    }),
  );
}

/**
 * The `ensure` checks from Artillery's output ("Checks:" then "ok: EXPR" / "fail: EXPR" lines);
 * its JSON report does not record them.
 */
export function parseChecks(output: string): EnsureResult[] {
  const lines = stripVTControlCharacters(output).split("\n");
  const start = lines.lastIndexOf("Checks:");
  if (start < 0) return [];
  return lines.slice(start + 1).flatMap((line) => {
    const match = /^(ok|fail): (.+)$/.exec(line.trim());
    return match ? [{ expression: match[2]!, passed: match[1] === "ok" }] : [];
  });
}

/** Installs the project's Artillery (load_test/node_modules) the first time it is needed; any other missing binary fails with what to do. */
export function ensureArtillery(binary = ARTILLERY): void {
  if (!existsSync(binary) && binary === ARTILLERY) installPart("artillery");
  if (!existsSync(binary)) throw new Error(`Artillery is not installed: ${binary} is missing; ${setupHint("artillery")}`);
}

/** Runs Artillery (its output shown as it runs); resolves with its JSON report, its checks and whether they passed. */
async function artillery(
  target: string,
  config: ArtilleryScript,
  outDir: string,
  label: string,
): Promise<{ report: ArtilleryReport; checks: EnsureResult[]; passed: boolean }> {
  const configFile = join(outDir, `config-${label}.yaml`);
  const reportFile = join(outDir, `artillery-${label}.json`);
  writeFileSync(configFile, stringify(config));
  let output = "";
  const code = await new Promise<number | null>((done, fail) => {
    const child = spawnOwned(ARTILLERY, ["run", "--target", target, "--output", reportFile, configFile], {
      stdio: ["ignore", "pipe", "inherit"],
      // piped to be read, so colours only if they would have been shown
      env: {
        ...process.env,
        ARTILLERY_DISABLE_TELEMETRY: "true",
        PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1",
        ...(process.stdout.isTTY ? { FORCE_COLOR: "1" } : {}),
      },
    });
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      process.stdout.write(chunk);
    });
    child.on("error", (error) => fail(new Error(`could not start Artillery (${ARTILLERY}): ${error.message}; run \`bash scripts/setup.sh artillery\``)));
    child.on("close", done);
  });
  let report: ArtilleryReport;
  try {
    report = JSON.parse(readFileSync(reportFile, "utf8"));
  } catch {
    throw new Error(`Artillery exited with code ${code} and wrote no report (${reportFile})`);
  }
  return { report, checks: parseChecks(output), passed: code === 0 };
}

/** A run's verdict line and its per-function table, as printed at the end. */
export function table(run: RunSummary): string {
  const header = ["function", "requests", "errors", "cold starts", "init types", "p50 ms", "p95 ms", "p99 ms", "first-request p99 ms"];
  const fmt = (value: number | null) => (value === null ? "–" : value.toFixed(1));
  const rows = Object.entries(run.functions).map(([name, v]) => [
    name,
    String(v.requests),
    String(v.errors),
    String(v.coldStarts),
    Object.entries(v.initializationTypes)
      .map(([type, count]) => `${type} ${count}`)
      .join(", ") || "–",
    fmt(v.latencyMs.p50),
    fmt(v.latencyMs.p95),
    fmt(v.latencyMs.p99),
    fmt(v.firstRequestMs.p99),
  ]);
  const failed = run.checks.filter((check) => !check.passed).map((check) => check.expression);
  const verdict = run.thresholdsPassed ? "passed" : `FAILED${failed.length ? ` (${failed.join("; ")})` : ""}`;
  const columns = renderTable(header, rows, "text", ["left", "right", "right", "right", "left"]);
  return `provisioned concurrency: ${run.provisionedConcurrency}   thresholds: ${verdict}\n${columns}`;
}

/** A deployed stack's HTTP API URL (its ApiUrl output). */
export async function stackApiUrl(stack: string, region: string | undefined, client?: CloudFormationClient): Promise<string> {
  const url = (await stackOutputs(stack, region, client)).ApiUrl;
  if (!url) throw new Error(`stack ${stack} has no ApiUrl output: deploy this project's template (sam deploy) or name a stack that has one`);
  return url;
}

async function main(parsed: Parsed<typeof OPTIONS>): Promise<number> {
  const opts = options(parsed);
  mkdirSync(opts.out, { recursive: true });
  const template = resolve(opts.template);
  const config = scaledConfig(template, opts.duration, opts.maxP99);
  console.error(`== scenario: ${relative(process.cwd(), scenarioFileOf(template))}, one flow per GET route, phases scaled to ${opts.duration} s`);
  // A stack without an API says so before anything is installed.
  const deployed = opts.stack ? await stackApiUrl(opts.stack, opts.region) : null;
  ensureArtillery();
  const runs: RunSummary[] = [];
  if (deployed) {
    const { report, checks, passed } = await artillery(deployed, config, opts.out, "deployed");
    runs.push({ provisionedConcurrency: "as deployed", target: deployed, thresholdsPassed: passed, checks, functions: summarize(report) });
  } else {
    // A function whose build fails is not served, nor its route loaded; the others are.
    let notBuilt = new Map<string, string>();
    if (!opts["no-build"]) {
      console.error("== sam build");
      notBuilt = await samBuildEach({ template, quiet: true, parameterOverrides: opts.parameterOverrides }, (line) => console.error(`== ${line}`));
      config.scenarios = config.scenarios.filter((scenario) => !notBuilt.has(scenario.name));
      if (config.scenarios.length === 0) throw new Error(`every function with an HttpApi GET route fails its build: ${[...notBuilt.keys()].join(", ")}`);
    }
    for (const provisioned of [0, opts.provisioned]) {
      console.error(`== lab with provisioned concurrency ${provisioned} per function`);
      const parameterOverrides = { ...opts.parameterOverrides, ProvisionedConcurrency: String(provisioned) };
      await withLab({ template: builtTemplateOf(template), parameterOverrides, notBuilt, fidelity: opts.fidelity }, async (lab) => {
        for (const line of provisionFailureLines(lab)) console.error(line);
        const { report, checks, passed } = await artillery(lab.apiUrl, config, opts.out, `pc${provisioned}`);
        runs.push({ provisionedConcurrency: provisioned, target: lab.apiUrl, thresholdsPassed: passed, checks, functions: summarize(report) });
      });
    }
  }
  writeFileSync(join(opts.out, "summary.json"), `${JSON.stringify({ durationSeconds: opts.duration, runs }, null, 2)}\n`);
  console.log(`\n${runs.map(table).join("\n\n")}\n\nSummary: ${join(opts.out, "summary.json")}`);
  if (runs.every((run) => run.thresholdsPassed)) return 0;
  console.error("error: a run failed its thresholds (config.yaml's `ensure`, or --max-p99); the table above names the failed checks");
  return 1;
}

export const command = defineCommand(
  {
    name: "load",
    summary: "Artillery against the template's HTTP API, end to end: locally with provisioned concurrency off and on, or against a deployed stack.",
    options: OPTIONS,
    rules: [
      {
        given: "stack",
        excludes: ["parameter-overrides"],
        message: "--parameter-overrides sets up the local lab; a --stack runs with the values it was deployed with",
      },
    ],
  },
  main,
);
