// `warpstart bench`: forced cold starts of every cell (a template's function, built in a profile,
// run on a runtime), interleaved, through the Lambda Invoke API of the local lab or of deployed
// stacks. Prints the tables and writes results.json, report.md and chart.svg; OPTIONS are its flags.

import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import type { LambdaClient } from "@aws-sdk/client-lambda";
import { initChartSvg } from "../bench/chart.mts";
import { localVersions, machine } from "../bench/environment.mts";
import { EMPTY_HANDLER, hyperfineVersion, measureProcessStart, startCell } from "../bench/process-start.mts";
import { consoleSummary, markdownReport } from "../bench/report.mts";
import { type BenchResults, cellLabel, cellName, type ProcessStart, WRAPPED } from "../bench/results.mts";
import { buildFunction, fellBackIn, functionBuild } from "../builder/build.mts";
import { builtByPipeline } from "../builder/handler.mts";
import { PEER_NAMES, PROFILE_NAMES, profileNamed, warpAblations, withToolEnvironment } from "../builder/profiles.mts";
import { errorMessage } from "../core/errors.mts";
import {
  assertFunctionsOf,
  commaList,
  defineCommand,
  FUNCTIONS_OPTIONS,
  NO_BUILD_OPTION,
  type Parsed,
  TEMPLATE_OPTION,
  UsageError,
  VARIANTS_RULE,
  type Values,
} from "../core/options.mts";
import { buildDirOf, builtTemplateOf, timestamp } from "../core/paths.mts";
import { onEndingSignal } from "../core/processes.mts";
import { createProgress } from "../core/progress.mts";
import { ensureInstalled, RUNTIME_NAMES, type Runtime } from "../core/runtimes.mts";
import { describeStack } from "../core/stacks.mts";
import { readTemplate, type SamTemplate, type TemplateFunction } from "../core/template.mts";
import { lambdaSdk } from "../core/tools.mts";
import { readEnvVars } from "../emulation/env-vars.mts";
import { functionEvent } from "../emulation/events.mts";
import { servicesOf } from "../emulation/function-environment.mts";
import { ownLocalAws } from "../emulation/local-aws/build-services.mts";
import { FIDELITY_OPTIONS, fidelityFrom } from "../lab/fidelity.mts";
import { parseRuntimes } from "../lab/functions.mts";
import { type Lab, labClient, localAwsNotes, provisionFailureLines, startLab } from "../lab/lab.mts";
import { ENV_VARS_OPTION, PARAMETER_OPTIONS, parameterOverridesFrom } from "../lab/parameters.mts";
import { samBuildEach } from "../lab/sam.mts";
import { AS_BUILT, type ColdStartCell, type RunOutcome, runColdStarts } from "../measure/cold-starts.mts";
import { WARP_EXEC_WRAPPER } from "../src/contract.mts";

const OPTIONS = {
  rounds: { value: "N", whole: [1], default: "30", help: "forced cold starts per cell (a function in a profile on a runtime)" },
  ...TEMPLATE_OPTION,
  ...FUNCTIONS_OPTIONS,
  profiles: {
    value: "LIST",
    help: `build each function in each of these profiles (${PROFILE_NAMES.join(", ")}, or what users pick\ninstead: ${PEER_NAMES.join(", ")}) and measure them side by side (default: each function\nin its own profile, as sam build builds it; local only)`,
  },
  runtimes: {
    value: "LIST",
    help: `run every cell on each runtime, interleaved: ${RUNTIME_NAMES.join(", ")}, bun-no-cache\n(without its startup cache), or the path of another runtime's binary (e.g.\n./llrt); a function the pipeline builds is built again for each Node.js runtime;\nadds hyperfine's process-start comparison (local only)`,
  },
  ablate: {
    help: `measure Optimized, Warp and Warp without each of its optimizations in turn (the profiles\n${Object.keys(warpAblations()).join(", ")}), for the functions built with Warp or those of --functions`,
  },
  "exec-wrapper": {
    help: `also measure each build started through the exec wrapper that drops the runtime's V8\nflags (<name>+wrapper: AWS_LAMBDA_EXEC_WRAPPER=${WARP_EXEC_WRAPPER}, docs/warp.md)`,
  },
  out: { value: "DIR", help: "where results.json, report.md and chart.svg go (default: results/<date-time>)" },
  stack: {
    value: "LIST",
    help: "measure deployed stacks (sam deploy) instead of the local lab; one stack per runtime\n(deploy with --parameter-overrides Runtime=<runtime>), each labelled by its Runtime output",
  },
  region: { value: "R", help: "the stacks' region (default: AWS_REGION or your AWS config)" },
  ...NO_BUILD_OPTION,
  verbose: { help: "print every line the local functions log" },
  ...PARAMETER_OPTIONS,
  ...ENV_VARS_OPTION,
  ...FIDELITY_OPTIONS,
} as const;

/** --runtimes, each installed (undefined: the template's runtime). */
function runtimesFrom(list: string | undefined): Runtime[] | undefined {
  let runtimes: Runtime[] | undefined;
  try {
    runtimes = list === undefined ? undefined : parseRuntimes(list);
    runtimes?.forEach(ensureInstalled);
  } catch (error) {
    throw new UsageError(`--runtimes: ${errorMessage(error)}`, { cause: error });
  }
  if (runtimes?.length === 0) throw new UsageError("--runtimes needs at least one runtime");
  return runtimes;
}

/** The logical ids of --functions (or --variants, its old name); by default every function, or with --ablate the Warp ones. */
function functionNamesFrom(values: { functions?: string; variants?: string; ablate: boolean }, template: SamTemplate): string[] {
  const chosen = values.functions ?? values.variants;
  const names = chosen
    ? commaList(chosen)
    : values.ablate
      ? template.functions.filter((fn) => fn.buildProperties.Profile === "Warp").map((fn) => fn.logicalId)
      : template.functions.map((fn) => fn.logicalId);
  assertFunctionsOf(template, names);
  if (names.length === 0)
    throw new UsageError(values.ablate ? "no function of the template is built with Warp: name the ones to ablate with --functions" : "no function to measure");
  return names;
}

function options(values: Values<typeof OPTIONS>) {
  const templateFile = resolve(values.template);
  const parameterOverrides = parameterOverridesFrom(values, templateFile);
  // Read with the lab's values, so that each generated event names what the lab creates.
  const template = readTemplate(templateFile, parameterOverrides);
  const runtimes = runtimesFrom(values.runtimes);
  const names = functionNamesFrom(values, template);
  const profiles = values.ablate ? ["Optimized", "Warp", ...Object.keys(warpAblations())] : values.profiles ? commaList(values.profiles) : undefined;
  for (const profile of profiles ?? []) {
    try {
      profileNamed(profile);
    } catch (error) {
      throw new UsageError(`--profiles: ${errorMessage(error)}`, { cause: error });
    }
  }
  return {
    ...values,
    fidelity: fidelityFrom(values),
    parameterOverrides,
    envVars: readEnvVars(templateFile, values["env-vars"]),
    runtimes,
    template,
    profiles,
    functions: template.functions.filter((fn) => names.includes(fn.logicalId)),
    out: resolve(values.out ?? join("results", timestamp())),
  };
}

/**
 * A build: a template function in a profile, as the bench serves it, built by `sam build` (its
 * own profile) or here (any other). On each runtime measured, a build makes one cell.
 */
interface MeasuredBuild {
  function: string;
  profile: string;
  /** The cells' name (cellName): the function's logical id, with /<profile> when the run builds it in several profiles. */
  name: string;
  /** The function this one is the Floor of (Metadata.FloorOf), if it is one. */
  floorOf?: string;
  /** Started through the exec wrapper (--exec-wrapper). */
  execWrapper?: boolean;
  served: TemplateFunction;
  /** The runtimes its build failed on, where it has no cell (the report says why). */
  notOn?: ReadonlySet<string>;
}

/** The function as its owner would deploy it through the exec wrapper that drops the runtime's V8 flags (src/warp/warp-exec). */
const withExecWrapper = (fn: TemplateFunction): TemplateFunction => ({
  ...fn,
  environment: { ...fn.environment, AWS_LAMBDA_EXEC_WRAPPER: WARP_EXEC_WRAPPER },
});

/**
 * The profile sam build builds a function in: its Profile where this project's rule builds it
 * (BuildMethod: makefile), else AS_BUILT (SAM's own builder, which no --profiles names).
 */
function ownProfile(template: SamTemplate, fn: TemplateFunction): string {
  return builtByPipeline(fn) ? functionBuild(template, fn.logicalId).profileName : AS_BUILT;
}

/** Why a Warp cell is not measured: its build could not make the code cache and is Optimized's (measure that with --profiles Optimized). */
const fellBackMessage = (why: string) => `its Warp build is Optimized's, for want of a code cache (${why}): measure it with --profiles Optimized`;

/**
 * Every function in every profile asked for (or its own); the ones not in their own profile are
 * built here, next to the SAM build, for each managed runtime measured (--runtimes; else the
 * function's own), and with --exec-wrapper each one again, wrapped (<name>+wrapper). A build
 * that fails on one runtime leaves its cells on the others measured.
 */
async function buildsOf(
  template: SamTemplate,
  functions: TemplateFunction[],
  profiles: string[] | undefined,
  runtimes: Runtime[] | undefined,
  execWrapper: boolean,
  overrides: Record<string, string>,
): Promise<{ builds: MeasuredBuild[]; extra: TemplateFunction[]; notBuilt: NonNullable<BenchResults["notBuilt"]>; builtOn: Map<string, string> }> {
  const builds: MeasuredBuild[] = [];
  const extra: TemplateFunction[] = [];
  const notBuilt: NonNullable<BenchResults["notBuilt"]> = [];
  const builtOn = new Map<string, string>();
  const built = readTemplate(builtTemplateOf(template.file), overrides);
  /** Builds fn in a profile into a folder of its own per runtime and serves it beside the template's functions. */
  const buildHere = async (fn: TemplateFunction, served: TemplateFunction, profile: string, id: string, cell: Omit<MeasuredBuild, "served">) => {
    const managed = runtimes?.filter((runtime) => runtime.kind === "managed") ?? [];
    // Each managed runtime measured, or (none named) the one the function deploys to, as the template says.
    const on: Array<Runtime | undefined> = managed.length ? managed : [undefined];
    const labId = `${fn.logicalId}-${id}`;
    const notOn = new Set<string>();
    let home: TemplateFunction | undefined;
    for (const runtime of on) {
      const codeDir = join(buildDirOf(template.file), "..", "profiles", fn.logicalId, runtime && on.length > 1 ? `${id}@${runtime.name}` : id);
      console.error(`== building ${fn.logicalId} with the ${id} profile${runtime ? ` for ${runtime.lambdaRuntime}` : ""}`);
      let message: string | undefined;
      try {
        const asked = { ...functionBuild(template, fn.logicalId, profile), fn };
        const forRuntime = runtime ? { ...asked, fn: { ...fn, runtime: runtime.lambdaRuntime }, deployedRuntime: () => runtime.name } : asked;
        const { fellBack, notes = [] } = await buildFunction(forRuntime, codeDir, { initServices: ownLocalAws });
        if (fellBack) message = fellBackMessage(fellBack);
        else for (const note of notes) console.error(`   ${note}`);
      } catch (error) {
        message = errorMessage(error).split("\n")[0]!;
      }
      if (message) {
        // One build that fails leaves the others measured; the report says why its cells are missing.
        const where = runtime && on.length > 1 ? `on ${runtime.name}: ` : "";
        console.error(`   not built, so not measured: ${where}${message}`);
        notBuilt.push({ function: fn.logicalId, profile: id, message: `${where}${message}` });
        if (runtime) notOn.add(runtime.name);
        continue;
      }
      if (runtime) builtOn.set(`${labId}@${runtime.name}`, codeDir);
      home ??= withToolEnvironment({ ...served, logicalId: labId, codeDir, runtime: runtime?.lambdaRuntime ?? served.runtime }, profileNamed(profile));
    }
    if (!home) return;
    extra.push(home);
    builds.push({ ...cell, served: home, notOn });
  };
  for (const fn of functions) {
    const own = ownProfile(template, fn);
    const served = built.functions.find((candidate) => candidate.logicalId === fn.logicalId) ?? fn;
    const floorOf = fn.floorOf ?? undefined;
    for (const profile of profiles ?? [own]) {
      const name = cellName(fn.logicalId, profile, (profiles?.length ?? 1) > 1);
      const fellBack = profile === own ? fellBackIn(served.codeDir) : null;
      if (fellBack) notBuilt.push({ function: fn.logicalId, profile, message: fellBackMessage(fellBack) });
      else if (profile === own) builds.push({ function: fn.logicalId, profile, name, floorOf, served });
      else await buildHere(fn, served, profile, profile, { function: fn.logicalId, profile, name, floorOf });
      if (execWrapper) {
        await buildHere(withExecWrapper(fn), withExecWrapper(served), profile, `${profile}${WRAPPED}`, {
          function: fn.logicalId,
          profile,
          name: `${name}${WRAPPED}`,
          execWrapper: true,
        });
      }
    }
  }
  return { builds, extra, notBuilt, builtOn };
}

/**
 * Each function the pipeline builds in its own profile (sam build made it), built again for each managed runtime of `runtimes` it does not run
 * on (a build targets its runtime's Node, and Warp's code cache is that Node's), beside the SAM build:
 * `<LogicalId>@<runtime>` → its folder. One that fails runs as built for its own runtime, and the report says so.
 */
async function ownBuildsOn(
  template: SamTemplate,
  builds: MeasuredBuild[],
  runtimes: Runtime[],
  notBuilt: NonNullable<BenchResults["notBuilt"]>,
  builtOn: Map<string, string>,
): Promise<void> {
  for (const build of builds.filter((candidate) => candidate.profile !== AS_BUILT && candidate.served.logicalId === candidate.function)) {
    for (const runtime of runtimes) {
      if (runtime.kind !== "managed" || runtime.lambdaRuntime === build.served.runtime) continue;
      const asked = functionBuild(template, build.function);
      const codeDir = join(buildDirOf(template.file), "..", "profiles", build.function, `${build.profile}@${runtime.name}`);
      console.error(`== building ${build.function} (${build.profile}) for ${runtime.lambdaRuntime}`);
      try {
        await buildFunction({ ...asked, fn: { ...asked.fn, runtime: runtime.lambdaRuntime }, deployedRuntime: () => runtime.name }, codeDir, {
          initServices: ownLocalAws,
        });
        builtOn.set(`${build.function}@${runtime.name}`, codeDir);
      } catch (error) {
        const message = `on ${runtime.name}, measured as built for ${build.served.runtime}: its build for ${runtime.lambdaRuntime} failed: ${errorMessage(error).split("\n")[0]}`;
        console.error(`   ${message}`);
        notBuilt.push({ function: build.function, profile: build.profile, message });
      }
    }
  }
}

type Options = ReturnType<typeof options>;

/** Where the cells run: the Lambda API to call and, for each runtime, the function that runs a build on it. */
interface Target {
  client: LambdaClient;
  builds: MeasuredBuild[];
  /**
   * Each runtime measured and the function that runs a build on it. A runtime the template's own functions run on
   * (no --runtimes) runs only the builds of those functions (`own`): a template may put each function on its own.
   */
  runtimes: Array<{ runtime: string; functionName: (build: MeasuredBuild) => string | undefined; where: string; own?: boolean }>;
  /** How results.json describes it. */
  recorded: BenchResults["target"];
  notBuilt?: BenchResults["notBuilt"];
  /** The local lab, when the cells run there. */
  lab?: Lab;
}

/** Deployed stacks, one per runtime, each running every function as deployed (its own profile). */
async function stackTarget(opts: Options, stackList: string): Promise<Target> {
  const stacks = stackList.split(",").map((name) => name.trim());
  const client = new (await lambdaSdk()).LambdaClient({ region: opts.region });
  const wanted = opts.functions.map((fn) => fn.logicalId);
  const described = await Promise.all(stacks.map((stack) => describeStack(stack, opts.region, wanted)));
  const builds = opts.functions.map((fn) => ({
    function: fn.logicalId,
    profile: ownProfile(opts.template, fn),
    name: fn.logicalId,
    floorOf: fn.floorOf ?? undefined,
    served: fn,
  }));
  const runtimes = described.map(({ runtime, functions }, i) => ({
    runtime,
    functionName: (build: MeasuredBuild) => functions.get(build.function),
    where: `stack ${stacks[i]}`,
  }));
  const names = runtimes.map((entry) => entry.runtime);
  const repeated = names.find((runtime, i) => names.indexOf(runtime) !== i);
  if (repeated) throw new UsageError(`two stacks run on ${repeated}: give one stack per runtime`);
  return { client, builds, runtimes, recorded: { kind: "aws", stacks, region: await client.config.region() } };
}

/** The local lab serving the SAM build and the builds made here; `started` gets the lab as soon as it runs, for main to stop. */
async function localTarget(opts: Options, started: (lab: Lab) => void): Promise<Target> {
  // The process-start comparison comes last: a missing hyperfine must not cost a run's worth of cold starts.
  if (opts.runtimes) await hyperfineVersion();
  // A function whose build fails is not measured, and the report says why; the others are.
  let samNotBuilt = new Map<string, string>();
  if (!opts["no-build"]) {
    console.error("== sam build");
    samNotBuilt = await samBuildEach({ template: opts.template.file, quiet: true, parameterOverrides: opts.parameterOverrides }, (line) =>
      console.error(`== ${line}`),
    );
  }
  const measured = opts.functions.filter((fn) => !samNotBuilt.has(fn.logicalId));
  const { builds, extra, notBuilt, builtOn } = await buildsOf(
    opts.template,
    measured,
    opts.profiles,
    opts.runtimes,
    opts["exec-wrapper"],
    opts.parameterOverrides,
  );
  for (const fn of opts.functions.filter((candidate) => samNotBuilt.has(candidate.logicalId)))
    for (const profile of opts.profiles ?? [ownProfile(opts.template, fn)])
      notBuilt.push({ function: fn.logicalId, profile, message: samNotBuilt.get(fn.logicalId)! });
  if (opts.runtimes) await ownBuildsOn(opts.template, builds, opts.runtimes, notBuilt, builtOn);
  console.error("== starting the lab (local AWS + Lambda API)");
  const lab = await startLab({
    template: builtTemplateOf(opts.template.file),
    notBuilt: samNotBuilt,
    extraFunctions: extra,
    builtOn,
    parameterOverrides: opts.parameterOverrides,
    envVars: opts.envVars,
    runtimes: opts.runtimes,
    fidelity: opts.fidelity,
    onFunctionLine: opts.verbose ? (fn, line) => console.error(`[${fn}] ${line}`) : undefined,
  });
  started(lab);
  for (const line of localAwsNotes(lab)) console.error(line);
  for (const line of provisionFailureLines(lab)) console.error(line);
  // A function the lab does not serve (a runtime it cannot run, code not on disk...) is not measured, and the report says why; the others are.
  const served = builds.filter((build) => {
    const why = lab.refused.get(build.served.logicalId);
    if (why) {
      console.error(`== not measured: ${build.function}: ${why}`);
      notBuilt.push({ function: build.function, profile: build.profile, message: why });
    }
    return !why;
  });
  return {
    client: labClient(lab),
    builds: served,
    notBuilt,
    runtimes: (opts.runtimes ?? lab.runtimes).map((runtime) => ({
      runtime: runtime.name,
      functionName: (build: MeasuredBuild) => lab.functionOn(build.served.logicalId, runtime.name),
      where: "built template: run without --no-build",
      own: !opts.runtimes,
    })),
    recorded: { kind: "local", endpoint: lab.endpoint, fidelity: lab.fidelity },
    lab,
  };
}

/** Every build on every runtime of the target: the cells, each with the Lambda function that runs it. */
function cellsOn(target: Target): ColdStartCell[] {
  const notIn = (build: MeasuredBuild, where: string) =>
    new UsageError(
      `${build.function} is not in the ${where}${target.recorded.kind === "aws" ? ` (no ${build.function}FunctionName output, no AWS::Lambda::Function ${build.function})` : ""}`,
    );
  const cells = target.runtimes.flatMap((entry) =>
    target.builds.flatMap((build) => {
      if (build.notOn?.has(entry.runtime)) return [];
      const functionName = entry.functionName(build);
      if (!functionName) {
        if (entry.own) return [];
        throw notIn(build, entry.where);
      }
      return {
        name: build.name,
        function: build.function,
        profile: build.profile,
        floorOf: build.floorOf,
        execWrapper: build.execWrapper,
        runtime: entry.runtime,
        functionName,
        event: () => functionEvent(build.served),
      };
    }),
  );
  const unserved = target.builds.find((build) => !cells.some((cell) => cell.name === build.name));
  if (unserved) throw notIn(unserved, target.runtimes[0]!.where);
  return cells;
}

/** The forced cold starts of every cell, `rounds` times, each round in its own order, with a progress line. */
async function measureColdStarts(
  opts: Options,
  target: Target,
  cells: ColdStartCell[],
  label: (cell: ColdStartCell) => string,
): Promise<RunOutcome & { startedAt: string }> {
  const runtimes = target.runtimes.map((entry) => entry.runtime);
  console.error(`== ${opts.rounds} rounds x ${cells.length} cells (${target.builds.length} builds on ${runtimes.join(", ")}), order shuffled per round`);
  const progress = createProgress(opts.rounds * cells.length, { stream: process.stderr, label: "cold starts" });
  const startedAt = new Date().toISOString();
  const { lab } = target;
  const run = await runColdStarts({
    client: target.client,
    cells,
    rounds: opts.rounds,
    runId: randomBytes(4).toString("hex"),
    retire: lab && ((functionName) => lab.lambda.reclaimIdle(functionName)),
    onStep: ({ round, cell, ok }) => progress.tick(`round ${round + 1}/${opts.rounds} ${label(cell)}${ok ? "" : " FAILED"}`),
  });
  progress.done();
  return { ...run, startedAt };
}

/** The local tools' versions, and what the functions said about themselves: each runtime's version and each cell's SDK once, Warp's code cache per cell. */
function versionsOf(opts: Options, target: Target, cells: ColdStartCell[], reported: RunOutcome["reported"], label: (cell: ColdStartCell) => string) {
  const versions = target.lab ? localVersions(opts.runtimes ?? target.lab.runtimes) : {};
  for (const cell of cells) {
    const facts = reported[cell.functionName];
    if (!facts) continue;
    if (facts.runtime) versions[`${cell.runtime} reports`] ??= facts.runtime;
    if (facts.sdkVersion) versions[`sdk (${cell.name})`] ??= facts.sdkVersion;
    // The body's word if it has one; else the log's: a cache-carrying profile warns when V8 rejects it.
    const cachingProfile = cell.profile !== AS_BUILT && profileNamed(cell.profile).codeCache;
    const codeCache = facts.codeCache ?? (cachingProfile ? (facts.codeCacheRejected ? "rejected" : "accepted") : undefined);
    if (codeCache && codeCache !== "absent") versions[`V8 code cache (${label(cell)})`] = codeCache;
  }
  return versions;
}

/** hyperfine's process-start comparison of every measured cell and of an empty handler on each runtime, calling the local AWS. */
function processStart(lab: Lab, cells: Array<ColdStartCell & { label: string }>, runtimes: string[], rounds: number, out: string): Promise<ProcessStart> {
  const measured = cells.map((cell) => startCell(cell.label, cell.name, lab.lambda.served(cell.functionName)));
  const empty = runtimes.map((runtime) => {
    const fn = lab.lambda.served(cells.find((cell) => cell.runtime === runtime)!.functionName);
    return { ...EMPTY_HANDLER, label: cellLabel({ runtimes }, { name: EMPTY_HANDLER.name, runtime }), runtime: fn.runsOn, optDir: fn.optDir };
  });
  console.error(`== process start: hyperfine, ${measured.length + empty.length} commands`);
  return measureProcessStart([...empty, ...measured], servicesOf(lab.aws), {
    runs: Math.min(Math.max(rounds, 3), 30),
    warmup: 2,
    exportFile: join(out, "hyperfine.json"),
  });
}

/** Adds the process-start comparison (and hyperfine's version) to the results; false when it failed, the cold starts written all the same. */
async function addProcessStart(
  results: BenchResults,
  lab: Lab,
  cells: ColdStartCell[],
  opts: Options,
  label: (cell: ColdStartCell) => string,
): Promise<boolean> {
  try {
    const labelled = cells.map((cell) => ({ ...cell, label: label(cell) }));
    results.processStart = await processStart(lab, labelled, results.runtimes, opts.rounds, opts.out);
    results.versions.hyperfine = results.processStart.tool;
    return true;
  } catch (error) {
    console.error(`error: the process-start comparison failed: ${errorMessage(error)}`);
    return false;
  }
}

/** DIR/results.json, report.md and chart.svg, the summary on stdout and where the report is. */
function writeResults(out: string, results: BenchResults): void {
  writeFileSync(join(out, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(out, "report.md"), markdownReport(results));
  writeFileSync(join(out, "chart.svg"), initChartSvg(results));
  console.log(consoleSummary(results));
  const report = join(out, "report.md");
  const shown = relative(process.cwd(), report);
  console.log(`\nReport: ${shown.startsWith("..") ? report : shown} (with chart.svg and the raw samples in results.json)`);
}

async function main({ values }: Parsed<typeof OPTIONS>): Promise<number> {
  const opts = options(values);
  let lab: Lab | undefined;
  const stopLab = async () => lab?.stop();
  onEndingSignal(stopLab);
  try {
    const target = opts.stack
      ? await stackTarget(opts, opts.stack)
      : await localTarget(opts, (started) => {
          lab = started;
        });
    const cells = cellsOn(target);
    const runtimes = target.runtimes.map((entry) => entry.runtime);
    const label = (cell: ColdStartCell) => cellLabel({ runtimes }, cell);
    const run = await measureColdStarts(opts, target, cells, label);
    mkdirSync(opts.out, { recursive: true });
    const results: BenchResults = {
      schema: 6,
      startedAt: run.startedAt,
      finishedAt: "",
      target: target.recorded,
      rounds: opts.rounds,
      cells: run.cells,
      runtimes,
      ...(target.notBuilt?.length ? { notBuilt: target.notBuilt } : {}),
      versions: versionsOf(opts, target, cells, run.reported, label),
      machine: machine(),
    };
    const processStartFailed = target.lab && opts.runtimes ? !(await addProcessStart(results, target.lab, cells, opts, label)) : false;
    results.finishedAt = new Date().toISOString();
    writeResults(opts.out, results);
    const failures = run.cells.reduce((sum, cell) => sum + cell.failures.length, 0);
    return failures === opts.rounds * cells.length || processStartFailed ? 1 : 0;
  } finally {
    await stopLab();
  }
}

export const command = defineCommand(
  {
    name: "bench",
    summary:
      "Forced cold starts of a template's functions, interleaved, in the local lab or on deployed stacks: Init Duration and end-to-end percentiles, ratios with 95% intervals, JSON, Markdown and a chart.",
    options: OPTIONS,
    rules: [
      VARIANTS_RULE,
      {
        given: "stack",
        excludes: ["parameter-overrides"],
        message: "--parameter-overrides sets up the local lab; a --stack runs with the values it was deployed with",
      },
      { given: "stack", excludes: ["network", "code-loading"], message: "--network and --code-loading set up the local lab; a --stack runs on Lambda itself" },
      { given: "ablate", excludes: ["profiles"], message: "--ablate chooses its own profiles; leave out --profiles" },
      {
        given: "stack",
        excludes: ["ablate", "profiles", "exec-wrapper"],
        message: "--profiles, --ablate and --exec-wrapper build locally; a --stack runs each function as deployed",
      },
      {
        given: "stack",
        excludes: ["runtimes"],
        message: "with --stack, the runtimes are the stacks' own: deploy one stack per runtime (Runtime parameter) and give --stack A,B",
      },
    ],
  },
  main,
);
