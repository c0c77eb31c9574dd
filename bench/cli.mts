// `npm run bench -- [flags]`: forced cold starts of a template's functions, each in its own
// profile or in every profile asked for, interleaved, through the Lambda Invoke API of the local
// lab (default) or of a deployed stack (--stack). Prints the tables and writes DIR/results.json,
// DIR/report.md and DIR/chart.svg.

import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import type { CloudFormationClient } from "@aws-sdk/client-cloudformation";
import { LambdaClient } from "@aws-sdk/client-lambda";
import { buildFunction, functionBuild } from "../builder/build.mts";
import { PROFILE_NAMES, profileNamed, warpAblations } from "../builder/profiles.mts";
import { assertFunctionsOf, commaList, errorMessage, onEndingSignal, parseCommandLine, runCommand, timestamp, UsageError, wholeNumber } from "../core/cli.mts";
import { type ColdStartVariant, runColdStarts } from "../core/cold-starts.mts";
import { servicesOf } from "../core/function-environment.mts";
import { buildDirOf, builtTemplateOf, PROJECT_ROOT, PROJECT_TEMPLATE } from "../core/paths.mts";
import { createProgress } from "../core/progress.mts";
import { assertInstalled, DEFAULT_RUNTIME, RUNTIME_NAMES, type Runtime } from "../core/runtimes.mts";
import { functionNames, stackOutputs } from "../core/stacks.mts";
import { readTemplate, type SamTemplate, type TemplateFunction } from "../core/template.mts";
import { functionEvent } from "../lab/events.mts";
import { FIDELITY_FLAGS, FIDELITY_USAGE, fidelityFrom } from "../lab/fidelity.mts";
import { parseRuntimes } from "../lab/functions.mts";
import { type Lab, labClient, startLab } from "../lab/lab.mts";
import { samBuild } from "../lab/sam.mts";
import { initChartSvg } from "./chart.mts";
import { localVersions, machine } from "./environment.mts";
import { EMPTY_HANDLER, hyperfineVersion, measureProcessStart, startCell } from "./process-start.mts";
import { consoleSummary, markdownReport } from "./report.mts";
import { type BenchResults, cellLabel, cellName, type ProcessStart } from "./results.mts";

const USAGE = `usage: npm run bench -- [--rounds N] [--template FILE] [--variants A,B,...] [--profiles P,Q,...] [--runtimes R,S,...] [--ablate] [--out DIR] [--stack NAME[,NAME...] [--region R]] [--network N] [--code-loading M] [--no-build] [--verbose]
  --rounds N       forced cold starts per cell (default 30)
  --template FILE  the SAM template whose functions to measure (default: template.yaml)
  --variants LIST  its functions to measure, by logical id (default: all)
  --profiles LIST  build each function in each of these profiles (${PROFILE_NAMES.join(", ")}) and measure them side
                   by side (default: each function in its own profile, as sam build builds it; local only)
  --runtimes LIST  run every cell on each runtime, interleaved: ${RUNTIME_NAMES.join(", ")}, bun-no-cache
                   (without its startup cache), or the path of another runtime's binary (e.g.
                   ./llrt); adds hyperfine's process-start comparison (local only)
  --ablate         measure Optimized, Warp and Warp without each of its optimizations in turn (the profiles
                   ${Object.keys(warpAblations()).join(", ")}), for the functions built with Warp or those of --variants
  --out DIR        where results.json, report.md and chart.svg go (default results/<date-time>)
  --stack LIST     measure deployed stacks (sam deploy) instead of the local lab; one stack per runtime
                   (deploy with --parameter-overrides Runtime=<runtime>), each labelled by its Runtime output
  --region R       the stacks' region (default: AWS_REGION or your AWS config)
  --no-build       locally, use the existing .aws-sam/build instead of running sam build
  --verbose        print every line the local functions log
${FIDELITY_USAGE}`;

function options() {
  const { values } = parseCommandLine({
    options: {
      rounds: { type: "string", default: "30" },
      template: { type: "string", default: PROJECT_TEMPLATE },
      variants: { type: "string" },
      profiles: { type: "string" },
      runtimes: { type: "string" },
      out: { type: "string" },
      stack: { type: "string" },
      region: { type: "string" },
      "no-build": { type: "boolean", default: false },
      ablate: { type: "boolean", default: false },
      verbose: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
      ...FIDELITY_FLAGS,
    },
  });
  const rounds = wholeNumber("rounds", values.rounds, 1)!;
  const templateFile = resolve(values.template);
  const template = readTemplate(templateFile);
  const local = !values.stack;
  if (values.ablate && values.profiles) throw new UsageError("--ablate chooses its own profiles; leave out --profiles");
  if ((values.ablate || values.profiles) && values.runtimes)
    throw new UsageError(`--${values.ablate ? "ablate" : "profiles"} measures on the template's runtime; leave out --runtimes`);
  if (!local && (values.ablate || values.profiles)) throw new UsageError("--profiles and --ablate build locally; a --stack runs each function as deployed");
  if (values.stack && values.runtimes)
    throw new UsageError("with --stack, the runtimes are the stacks' own: deploy one stack per runtime (Runtime parameter) and give --stack A,B");
  let runtimes: Runtime[] | undefined;
  try {
    runtimes = values.runtimes === undefined ? undefined : parseRuntimes(values.runtimes);
    runtimes?.forEach(assertInstalled);
  } catch (error) {
    throw new UsageError(`--runtimes: ${errorMessage(error)}`);
  }
  if (runtimes?.length === 0) throw new UsageError("--runtimes needs at least one runtime");
  const names = values.variants
    ? commaList(values.variants)
    : values.ablate
      ? template.functions.filter((fn) => fn.buildProperties.Profile === "Warp").map((fn) => fn.logicalId)
      : template.functions.map((fn) => fn.logicalId);
  assertFunctionsOf(template, names);
  if (names.length === 0)
    throw new UsageError(values.ablate ? "no function of the template is built with Warp: name the ones to ablate with --variants" : "no function to measure");
  const profiles = values.ablate ? ["Optimized", "Warp", ...Object.keys(warpAblations())] : values.profiles ? commaList(values.profiles) : undefined;
  for (const profile of profiles ?? []) {
    try {
      profileNamed(profile);
    } catch (error) {
      throw new UsageError(`--profiles: ${errorMessage(error)}`);
    }
  }
  if (!local && (values.network || values["code-loading"]))
    throw new UsageError("--network and --code-loading set up the local lab; a --stack runs on Lambda itself");
  return {
    ...values,
    fidelity: fidelityFrom(values),
    rounds,
    runtimes,
    template,
    profiles,
    functions: template.functions.filter((fn) => names.includes(fn.logicalId)),
    out: resolve(values.out ?? join(PROJECT_ROOT, "results", timestamp())),
  };
}

/** A template function in a profile, as the bench measures it: built by `sam build` (its own profile) or here (any other), served as `served`. */
interface Cell {
  function: string;
  profile: string;
  name: string;
  /** The function this one is the Floor of (Metadata.FloorOf), if it is one. */
  floorOf?: string;
  served: TemplateFunction;
}

/** Every function in every profile asked for (or its own); the ones not in their own profile are built here, next to the SAM build. */
async function cellsOf(
  template: SamTemplate,
  functions: TemplateFunction[],
  profiles: string[] | undefined,
): Promise<{ cells: Cell[]; extra: TemplateFunction[]; notBuilt: NonNullable<BenchResults["notBuilt"]> }> {
  const cells: Cell[] = [];
  const extra: TemplateFunction[] = [];
  const notBuilt: NonNullable<BenchResults["notBuilt"]> = [];
  const built = readTemplate(builtTemplateOf(template.file));
  for (const fn of functions) {
    const own = functionBuild(template, fn.logicalId).profileName;
    const served = built.functions.find((candidate) => candidate.logicalId === fn.logicalId) ?? fn;
    const floorOf = fn.floorOf ?? undefined;
    for (const profile of profiles ?? [own]) {
      const name = cellName(fn.logicalId, profile, (profiles?.length ?? 1) > 1);
      if (profile === own) {
        cells.push({ function: fn.logicalId, profile, name, floorOf, served });
        continue;
      }
      const codeDir = join(buildDirOf(template.file), "..", "profiles", fn.logicalId, profile);
      console.error(`== building ${fn.logicalId} with the ${profile} profile`);
      try {
        await buildFunction(functionBuild(template, fn.logicalId, profile), codeDir);
      } catch (error) {
        // One cell that cannot be built leaves the others measured; the report says why it is missing.
        const message = errorMessage(error).split("\n")[0]!;
        console.error(`   not built, so not measured: ${message}`);
        notBuilt.push({ function: fn.logicalId, profile, message });
        continue;
      }
      const labFunction = { ...served, logicalId: `${fn.logicalId}-${profile}`, codeDir };
      extra.push(labFunction);
      cells.push({ function: fn.logicalId, profile, name, floorOf, served: labFunction });
    }
  }
  return { cells, extra, notBuilt };
}

/** A deployed stack's runtime (its Runtime output; stacks older than it ran node22) and function names. */
export async function describeStack(
  stack: string,
  region: string | undefined,
  client?: CloudFormationClient,
): Promise<{ runtime: string; functions: Map<string, string> }> {
  const outputs = await stackOutputs(stack, region, client);
  return { runtime: outputs.Runtime ?? DEFAULT_RUNTIME, functions: functionNames(outputs) };
}

/** hyperfine's process-start comparison of every measured cell and of an empty handler on each runtime, calling the local AWS. */
function processStart(lab: Lab, cells: Array<ColdStartVariant & { label: string }>, runtimes: string[], rounds: number, out: string): Promise<ProcessStart> {
  const measured = cells.map((cell) => startCell(cell.label, cell.name, lab.lambda.served(cell.functionName)));
  const empty = runtimes.map((runtime) => {
    const fn = lab.lambda.served(cells.find((cell) => cell.runtime === runtime)!.functionName);
    return { ...EMPTY_HANDLER, label: cellLabel({ runtimes }, { name: EMPTY_HANDLER.variant, runtime }), runtime: fn.runsOn, optDir: fn.optDir };
  });
  console.error(`== process start: hyperfine, ${measured.length + empty.length} commands`);
  return measureProcessStart([...empty, ...measured], servicesOf(lab.aws), {
    runs: Math.min(Math.max(rounds, 3), 30),
    warmup: 2,
    exportFile: join(out, "hyperfine.json"),
  });
}

async function main(): Promise<number> {
  const opts = options();
  if (opts.help) {
    console.log(USAGE);
    return 0;
  }
  let lab: Lab | undefined;
  const stopLab = async () => lab?.stop();
  onEndingSignal(stopLab);

  try {
    let client: LambdaClient;
    /** Every cell × runtime: the runtime's name and the function that runs the cell on it. */
    let targets: Array<{ runtime: string; functionName: (cell: Cell) => string | undefined; where: string }>;
    let cells: Cell[];
    let notBuilt: BenchResults["notBuilt"];
    let target: BenchResults["target"];
    if (opts.stack) {
      const stacks = opts.stack.split(",").map((name) => name.trim());
      client = new LambdaClient({ region: opts.region });
      const described = await Promise.all(stacks.map((stack) => describeStack(stack, opts.region)));
      cells = opts.functions.map((fn) => ({
        function: fn.logicalId,
        profile: functionBuild(opts.template, fn.logicalId).profileName,
        name: fn.logicalId,
        floorOf: fn.floorOf ?? undefined,
        served: fn,
      }));
      targets = described.map(({ runtime, functions }, i) => ({ runtime, functionName: (cell) => functions.get(cell.function), where: `stack ${stacks[i]}` }));
      const runtimes = targets.map((entry) => entry.runtime);
      const repeated = runtimes.find((runtime, i) => runtimes.indexOf(runtime) !== i);
      if (repeated) throw new UsageError(`two stacks run on ${repeated}: give one stack per runtime`);
      target = { kind: "aws", stacks, region: await client.config.region() };
    } else {
      // The process-start comparison comes last: a missing hyperfine must not cost a run's worth of cold starts.
      if (opts.runtimes) await hyperfineVersion();
      if (!opts["no-build"]) {
        console.error("== sam build");
        await samBuild({ template: opts.template.file, quiet: true });
      }
      const built = await cellsOf(opts.template, opts.functions, opts.profiles);
      cells = built.cells;
      notBuilt = built.notBuilt;
      console.error("== starting the lab (local AWS + Lambda API)");
      lab = await startLab({
        template: builtTemplateOf(opts.template.file),
        extraFunctions: built.extra,
        runtimes: opts.runtimes,
        fidelity: opts.fidelity,
        onFunctionLine: opts.verbose ? (fn, line) => console.error(`[${fn}] ${line}`) : undefined,
      });
      if (lab.resources.notCreated) console.error(lab.resources.notCreated);
      client = labClient(lab);
      const served = lab;
      targets = (opts.runtimes ?? [lab.runtime]).map((runtime) => ({
        runtime: runtime.name,
        functionName: (cell) => served.functionOn(cell.served.logicalId, runtime.name),
        where: "built template: run without --no-build",
      }));
      target = { kind: "local", endpoint: lab.endpoint, fidelity: lab.fidelity };
    }

    const variants: ColdStartVariant[] = targets.flatMap((entry) =>
      cells.map((cell) => {
        const functionName = entry.functionName(cell);
        if (!functionName)
          throw new UsageError(`${cell.function} is not in the ${entry.where}${opts.stack ? ` (no ${cell.function}FunctionName output)` : ""}`);
        return {
          name: cell.name,
          function: cell.function,
          profile: cell.profile,
          floorOf: cell.floorOf,
          runtime: entry.runtime,
          functionName,
          event: () => functionEvent(cell.served),
        };
      }),
    );
    const runtimes = targets.map((entry) => entry.runtime);
    const label = (variant: ColdStartVariant) => cellLabel({ runtimes }, variant);

    const steps = opts.rounds * variants.length;
    console.error(
      `== ${opts.rounds} rounds x ${cells.length} cells x ${runtimes.length} runtime${runtimes.length > 1 ? "s" : ""} (${runtimes.join(", ")}), order shuffled per round`,
    );
    const progress = createProgress(steps, { stream: process.stderr, label: "cold starts" });
    const startedAt = new Date().toISOString();
    const localLab = lab;
    const run = await runColdStarts({
      client,
      variants,
      rounds: opts.rounds,
      runId: randomBytes(4).toString("hex"),
      retire: localLab && ((functionName) => localLab.lambda.reclaimIdle(functionName)),
      onStep: ({ round, variant, ok }) => progress.tick(`round ${round + 1}/${opts.rounds} ${label(variant)}${ok ? "" : " FAILED"}`),
    });
    progress.done();

    mkdirSync(opts.out, { recursive: true });
    const versions = target.kind === "local" ? localVersions(opts.runtimes ?? [lab!.runtime]) : {};
    // What the functions said about themselves: each runtime's version and each cell's SDK once, Warp's code cache per cell.
    for (const variant of variants) {
      const facts = run.reported[variant.functionName];
      if (!facts) continue;
      if (facts.runtime) versions[`${variant.runtime} reports`] ??= facts.runtime;
      if (facts.sdkVersion) versions[`sdk (${variant.name})`] ??= facts.sdkVersion;
      // The body's word if it has one; else the log's: a cache-carrying profile warns when V8 rejects it.
      const codeCache = facts.codeCache ?? (profileNamed(variant.profile).codeCache ? (facts.codeCacheRejected ? "rejected" : "accepted") : undefined);
      if (codeCache && codeCache !== "absent") versions[`V8 code cache (${label(variant)})`] = codeCache;
    }
    const results: BenchResults = {
      schema: 5,
      startedAt,
      finishedAt: "",
      target,
      rounds: opts.rounds,
      variants: run.variants,
      runtimes,
      ...(notBuilt?.length ? { notBuilt } : {}),
      versions,
      machine: machine(),
    };
    let processStartFailed = false;
    if (lab && opts.runtimes) {
      try {
        results.processStart = await processStart(
          lab,
          variants.map((variant) => ({ ...variant, label: label(variant) })),
          runtimes,
          opts.rounds,
          opts.out,
        );
        versions.hyperfine = results.processStart.tool;
      } catch (error) {
        processStartFailed = true; // the cold starts are written all the same
        console.error(`error: the process-start comparison failed: ${errorMessage(error)}`);
      }
    }
    results.finishedAt = new Date().toISOString();

    writeFileSync(join(opts.out, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(join(opts.out, "report.md"), markdownReport(results));
    writeFileSync(join(opts.out, "chart.svg"), initChartSvg(results));
    console.log(consoleSummary(results));
    const report = join(opts.out, "report.md");
    const shown = relative(process.cwd(), report);
    console.log(`\nReport: ${shown.startsWith("..") ? report : shown} (with chart.svg and the raw samples in results.json)`);
    const failures = run.variants.reduce((sum, variant) => sum + variant.failures.length, 0);
    return failures === steps || processStartFailed ? 1 : 0;
  } finally {
    await stopLab();
  }
}

if (import.meta.main) runCommand(USAGE, main);
