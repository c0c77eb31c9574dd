// `npm run phases`: where each function's cold start goes, by phase (bench/phase-analysis.mts).
// Each round starts every function in the lab, in a shuffled order: once with
// bench/phase-marks.mjs preloaded (its phases), once without (its Init Duration as the bench sees
// it, to show what marking costs) and, with the CPU profiler asked for, once more under it.
// The lab's own execution environments run them, with its network and code loading.
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { localVersions } from "../bench/environment.mts";
import {
  type ColdStartTimeline,
  type CpuProfile,
  type CpuProfileSplit,
  chunkStepTable,
  cpuProfileSplit,
  cpuProfileTable,
  type FunctionPhases,
  type PhaseResults,
  parseMarks,
  phaseChartSvg,
  phaseDurations,
  phaseReport,
  phaseTable,
} from "../bench/phase-analysis.mts";
import { functionBuild } from "../builder/build.mts";
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
} from "../core/options.mts";
import { builtTemplateOf, PACKAGE_ROOT, timestamp } from "../core/paths.mts";
import { onEndingSignal } from "../core/processes.mts";
import { createProgress } from "../core/progress.mts";
import { readTemplate } from "../core/template.mts";
import { functionEvent } from "../emulation/events.mts";
import { servicesOf } from "../emulation/function-environment.mts";
import { ExecutionEnvironment } from "../lab/emulator/environment.mts";
import type { ServedFunction } from "../lab/emulator/lambda-service.mts";
import { describeFidelity, FIDELITY_OPTIONS, fidelityFrom } from "../lab/fidelity.mts";
import { type Lab, startLab } from "../lab/lab.mts";
import { PARAMETER_OPTIONS, parameterOverridesFrom } from "../lab/parameters.mts";
import { samBuild } from "../lab/sam.mts";
import { mulberry32 } from "../measure/stats.mts";
import { SDK_CHUNK_CHANNEL } from "../src/contract.mts";

const OPTIONS = {
  ...TEMPLATE_OPTION,
  ...FUNCTIONS_OPTIONS,
  rounds: { value: "N", whole: [1, 1000], default: "10", help: "cold starts per function with the marks, and as many without" },
  out: { value: "DIR", help: "where phases.json, phases.md and phases.svg go (default: results/phases-<time>)" },
  ...NO_BUILD_OPTION,
  "cpu-prof": {
    help: "a third cold start per round under V8's CPU profiler: its handler load split into builtins,\nrequest creation, garbage collection, Warp's SDK chunk (cache, modules, first call) and other\ncode; each .cpuprofile kept in DIR/profiles",
  },
  ...PARAMETER_OPTIONS,
  ...FIDELITY_OPTIONS,
} as const;

const MARKS_PRELOAD = pathToFileURL(join(PACKAGE_ROOT, "bench/phase-marks.mjs")).href;
const INIT_TIMEOUT_MS = 10_000;
const INVOKE_TIMEOUT_MS = 30_000;
const SHUTDOWN_GRACE_MS = 5_000;
// 100 µs (Node's default is 1 ms): fine enough to see steps of a millisecond.
const PROFILE_INTERVAL_US = 100;

function options({ values }: Parsed<typeof OPTIONS>) {
  const templateFile = resolve(values.template);
  // Every cold start is one this tool starts: no provisioned environments, whatever samconfig.toml deploys with.
  const parameterOverrides = { ...parameterOverridesFrom(values, templateFile), ProvisionedConcurrency: "0" };
  const template = readTemplate(templateFile, parameterOverrides);
  const chosen = values.functions ?? values.variants;
  const names = chosen ? commaList(chosen) : template.functions.map((fn) => fn.logicalId);
  assertFunctionsOf(template, names);
  if (names.length === 0) throw new UsageError("no function to profile");
  return {
    template,
    names,
    rounds: values.rounds,
    out: resolve(values.out ?? join("results", `phases-${timestamp()}`)),
    build: !values["no-build"],
    cpuProf: values["cpu-prof"],
    fidelity: fidelityFrom(values),
    parameterOverrides,
  };
}

/** How a cold start is run: with the marks (its phases), without (Init as the bench sees it), or with the marks under V8's CPU profiler. */
type RunKind = "marked" | "plain" | "cpuProfiled";

/** What one cold start gave: Init Duration, and with marks its timeline; profiled, its handler load split. */
interface ColdStart {
  initMs: number;
  timeline: ColdStartTimeline | null;
  cpuProfile: CpuProfileSplit | null;
}

/** NODE_OPTIONS and the marks' variables for a run; a profiled run's profile goes to `profileFile`. */
function runVariables(kind: RunKind, marksFile: string, profileFile: string): Record<string, string> {
  if (kind === "plain") return {};
  const profiler =
    kind === "cpuProfiled"
      ? ` --cpu-prof --cpu-prof-interval=${PROFILE_INTERVAL_US} --cpu-prof-dir=${dirname(profileFile)} --cpu-prof-name=${basename(profileFile)}`
      : "";
  return { NODE_OPTIONS: `--import=${MARKS_PRELOAD}${profiler}`, WARPSTART_PHASE_MARKS: marksFile, WARPSTART_SDK_CHUNK_CHANNEL: SDK_CHUNK_CHANNEL };
}

/** One cold start and its first invoke in a new execution environment. */
async function coldStart(lab: Lab, fn: ServedFunction, kind: RunKind, marksFile: string, profileFile: string): Promise<ColdStart> {
  const event = functionEvent(fn); // before the environment starts: a trigger with no event fails the run here
  const env = new ExecutionEnvironment({
    spec: { name: fn.logicalId, codeDir: fn.codeDir, handler: fn.handler, memoryMb: fn.memoryMb, runtime: fn.runsOn, optDir: fn.optDir },
    services: servicesOf(lab.aws),
    variables: { ...fn.variables, ...runVariables(kind, marksFile, profileFile) },
    initializationType: "on-demand",
    codeLoading: lab.fidelity.codeLoading,
  });
  try {
    const init = await env.init(INIT_TIMEOUT_MS);
    if (init.kind !== "ready") throw new Error(`INIT did not complete (${init.kind}): ${env.takeLog().slice(-5).join(" | ")}`);
    const invocation = {
      requestId: randomUUID(),
      payload: Buffer.from(JSON.stringify(event)),
      deadlineMs: Date.now() + INVOKE_TIMEOUT_MS,
      functionArn: fn.logicalId,
      traceId: "",
    };
    const invokeStartedAt = process.hrtime.bigint();
    const outcome = await env.invoke(invocation, INVOKE_TIMEOUT_MS);
    const invokeEndedAt = process.hrtime.bigint();
    if (outcome.kind !== "response") throw new Error(`the first invoke failed (${outcome.kind}): ${env.takeLog().slice(-5).join(" | ")}`);
    if (kind === "plain") return { initMs: init.initDurationMs, timeline: null, cpuProfile: null };
    const marks = parseMarks(readFileSync(marksFile, "utf8"));
    const timeline = { spawnedAt: env.spawnedAt!, readyAt: env.readyAt!, invokeStartedAt, invokeEndedAt, marks };
    if (kind === "marked") return { initMs: init.initDurationMs, timeline, cpuProfile: null };
    // Node writes the profile as the process exits: the shutdown's SIGTERM makes it exit (bench/phase-marks.mjs).
    await env.shutdown(SHUTDOWN_GRACE_MS);
    if (!existsSync(profileFile)) throw new Error(`the profiled process wrote no CPU profile (${profileFile})`);
    const profile = JSON.parse(readFileSync(profileFile, "utf8")) as CpuProfile;
    return { initMs: init.initDurationMs, timeline: null, cpuProfile: cpuProfileSplit(profile, marks, env.readyAt!) };
  } finally {
    await env.kill();
  }
}

async function main(parsed: Parsed<typeof OPTIONS>): Promise<number> {
  const opts = options(parsed);
  const profiles = new Map(opts.names.map((name) => [name, functionBuild(opts.template, name).profileName]));
  if (opts.build) {
    console.error("== sam build"); // of the whole template: sam build takes one function or all
    await samBuild({ template: opts.template.file, quiet: true, parameterOverrides: opts.parameterOverrides });
  }
  console.error("== starting the local AWS with the template's resources");
  const lab = await startLab({
    template: builtTemplateOf(opts.template.file),
    only: opts.names,
    parameterOverrides: opts.parameterOverrides,
    fidelity: opts.fidelity,
  });
  const removeHandlers = onEndingSignal(() => lab.stop());
  const scratch = mkdtempSync(join(tmpdir(), "warpstart-phases-"));
  mkdirSync(opts.cpuProf ? join(opts.out, "profiles") : opts.out, { recursive: true });
  try {
    const phasesOf = new Map<string, FunctionPhases>(
      opts.names.map((name) => [name, { name, profile: profiles.get(name)!, withMarks: [], initWithoutMarksMs: [], cpuProfiled: [], failures: [] }]),
    );
    const random = mulberry32(Number.parseInt(randomBytes(4).toString("hex"), 16));
    const kinds: RunKind[] = opts.cpuProf ? ["marked", "plain", "cpuProfiled"] : ["marked", "plain"];
    const runs = opts.names.flatMap((name) => kinds.map((kind) => ({ name, kind })));
    const progress = createProgress(opts.rounds * runs.length, { label: "cold starts" });
    const startedAt = new Date().toISOString();
    for (let round = 0; round < opts.rounds; round++) {
      const order = [...runs].sort(() => random() - 0.5);
      for (const { name, kind } of order) {
        const fn = phasesOf.get(name)!;
        const label = kind === "plain" ? "" : ` (${kind})`;
        try {
          const run = await coldStart(
            lab,
            lab.lambda.served(name),
            kind,
            join(scratch, `${name}-${round}-${kind}.marks`),
            join(opts.out, "profiles", `${name}-${round + 1}.cpuprofile`),
          );
          if (run.timeline) fn.withMarks.push(phaseDurations(run.timeline));
          else if (run.cpuProfile) fn.cpuProfiled.push(run.cpuProfile);
          else fn.initWithoutMarksMs.push(run.initMs);
        } catch (error) {
          fn.failures.push(`round ${round + 1}${label}: ${errorMessage(error)}`);
        }
        progress.tick(`round ${round + 1}/${opts.rounds} ${name}${label}`);
      }
    }
    progress.done();
    const results: PhaseResults = {
      schema: 2,
      startedAt,
      rounds: opts.rounds,
      fidelity: describeFidelity(lab.fidelity),
      functions: [...phasesOf.values()],
      versions: localVersions(lab.runtimes),
    };
    writeFileSync(join(opts.out, "phases.json"), `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(join(opts.out, "phases.md"), phaseReport(results));
    writeFileSync(join(opts.out, "phases.svg"), phaseChartSvg(results));
    console.log(`Cold start by phase, p50 (ms)\n${phaseTable(results, "text")}`);
    const chunkSteps = chunkStepTable(results, "text");
    if (chunkSteps !== "") console.log(`\nHandler load of Warp's SDK chunk, p50 (ms)\n${chunkSteps}`);
    const profiled = cpuProfileTable(results, "text");
    if (profiled !== "") console.log(`\nHandler load under V8's CPU profiler, p50 (ms; the profiler slows everything)\n${profiled}`);
    const failed = results.functions.filter((fn) => fn.failures.length > 0);
    for (const fn of failed) console.error(`${fn.name} failed ${fn.failures.length} time(s); first: ${fn.failures[0]}`);
    console.error(`== ${relative(process.cwd(), opts.out)}/phases.{json,md,svg}`);
    return failed.length > 0 ? 1 : 0;
  } finally {
    removeHandlers();
    rmSync(scratch, { recursive: true, force: true });
    await lab.stop();
  }
}

export const command = defineCommand(
  {
    name: "phases",
    summary:
      "Where each function's cold start goes: its phases, marked in the function's own process, per round; with --cpu-prof, V8's profile of the handler's load.",
    options: OPTIONS,
    rules: [VARIANTS_RULE],
  },
  main,
);
