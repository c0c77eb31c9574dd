// `npm run bench -- [flags]`: forced cold starts of every variant, interleaved, through the
// Lambda Invoke API of the local lab (default) or of a deployed stack (--stack). Prints the
// tables and writes DIR/results.json, DIR/report.md and DIR/chart.svg.
import { DescribeStacksCommand, CloudFormationClient } from "@aws-sdk/client-cloudformation";
import { LambdaClient } from "@aws-sdk/client-lambda";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { parseRuntimes } from "../lab/functions.mts";
import { type Lab, labClient, startLab } from "../lab/lab.mts";
import { variantEvent } from "../lab/events.mts";
import { PROJECT_ROOT } from "../lab/paths.mts";
import { samBuild } from "../lab/sam.mts";
import { type TemplateFunction, templateFunctions } from "../lab/template.mts";
import { buildVariant } from "../build/build.mts";
import { assertInstalled, DEFAULT_RUNTIME, type Runtime, RUNTIME_NAMES } from "../build/runtimes.mts";
import { warpAblations } from "../build/variants.mts";
import { initChartSvg } from "./chart.mts";
import { localVersions, machine } from "./environment.mts";
import { EMPTY_HANDLER, hyperfineVersion, measureProcessStart, startCell } from "./process-start.mts";
import { createProgress } from "./progress.mts";
import { consoleSummary, markdownReport } from "./report.mts";
import { type BenchResults, cellLabel, type ProcessStart } from "./results.mts";
import { type BenchVariant, runBench } from "./run.mts";

const USAGE = `usage: npm run bench -- [--rounds N] [--variants A,B,...] [--runtimes R,S,...] [--ablate] [--out DIR] [--stack NAME[,NAME...] [--region R]] [--no-build] [--verbose]
  --rounds N       forced cold starts per variant (default 30)
  --variants LIST  functions of template.yaml to measure (default: all)
  --runtimes LIST  run every variant on each runtime, interleaved: ${RUNTIME_NAMES.join(", ")}, deno-no-cache or
                   bun-no-cache (without their startup caches), or the path of another runtime's binary (e.g.
                   ./llrt); adds hyperfine's process-start comparison (local only)
  --ablate         measure Optimized, Warp and Warp without each of its optimizations in turn (local only)
  --out DIR        where results.json, report.md and chart.svg go (default results/<date-time>)
  --stack LIST     measure deployed stacks (sam deploy) instead of the local lab; one stack per runtime
                   (deploy with --parameter-overrides Runtime=<runtime>), each labelled by its Runtime output
  --region R       the stacks' region (default: AWS_REGION or your AWS config)
  --no-build       locally, use the existing .aws-sam/build instead of running sam build
  --verbose        print every line the local functions log`;

class UsageError extends Error {}

function options() {
  const { values } = parseArgs({
    options: {
      rounds: { type: "string", default: "30" },
      variants: { type: "string" },
      runtimes: { type: "string" },
      out: { type: "string" },
      stack: { type: "string" },
      region: { type: "string" },
      "no-build": { type: "boolean", default: false },
      ablate: { type: "boolean", default: false },
      verbose: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new UsageError(`--rounds must be a whole number from 1, not "${values.rounds}"`);
  const known = templateFunctions(join(PROJECT_ROOT, "template.yaml"));
  if (values.ablate && values.stack) throw new UsageError("--ablate builds its variants locally; it does not run against a --stack");
  if (values.ablate && values.variants) throw new UsageError("--ablate chooses its own variants; leave out --variants");
  if (values.ablate && values.runtimes) throw new UsageError("--ablate measures Warp's optimizations on the template's runtime; leave out --runtimes");
  if (values.stack && values.runtimes) throw new UsageError("with --stack, the runtimes are the stacks' own: deploy one stack per runtime (Runtime parameter) and give --stack A,B");
  let runtimes: Runtime[] | undefined;
  try {
    runtimes = values.runtimes === undefined ? undefined : parseRuntimes(values.runtimes);
    runtimes?.forEach(assertInstalled);
  } catch (error) {
    throw new UsageError(`--runtimes: ${(error as Error).message}`);
  }
  if (runtimes?.length === 0) throw new UsageError("--runtimes needs at least one runtime");
  const names = values.ablate ? ["Optimized", "Warp"] : values.variants ? values.variants.split(",").map((name) => name.trim()) : known.map((fn) => fn.logicalId);
  const unknown = names.filter((name) => !known.some((fn) => fn.logicalId === name));
  if (unknown.length) throw new UsageError(`unknown variant(s) ${unknown.join(", ")}; template.yaml has ${known.map((fn) => fn.logicalId).join(", ")}`);
  const stamp = new Date().toISOString().replace(/[:T]/g, "-").slice(0, 19);
  return { ...values, rounds, runtimes, variants: known.filter((fn) => names.includes(fn.logicalId)), out: resolve(values.out ?? join(PROJECT_ROOT, "results", stamp)) };
}

/** Builds Warp without each optimization (build/variants.mts) next to the SAM build, as extra lab functions. */
async function buildAblations(warpFunction: TemplateFunction): Promise<TemplateFunction[]> {
  const built: TemplateFunction[] = [];
  for (const name of Object.keys(warpAblations())) {
    const codeDir = join(PROJECT_ROOT, ".aws-sam/ablations", name);
    console.error(`== building ${name}`);
    await buildVariant(name, codeDir, { memoryMb: warpFunction.memoryMb });
    built.push({ ...warpFunction, logicalId: name, codeDir, httpPath: warpFunction.httpPath });
  }
  return built;
}

/** A deployed stack's runtime (its Runtime output; stacks older than it ran node22) and function names, from its <Variant>FunctionName outputs. */
async function describeStack(stack: string, region: string | undefined): Promise<{ runtime: string; functions: Map<string, string> }> {
  const cloudformation = new CloudFormationClient({ region });
  const described = await cloudformation.send(new DescribeStacksCommand({ StackName: stack }));
  const outputs = described.Stacks?.[0]?.Outputs ?? [];
  const functions = new Map(outputs.flatMap((output) => (output.OutputKey?.endsWith("FunctionName") && output.OutputValue ? [[output.OutputKey.slice(0, -"FunctionName".length), output.OutputValue]] : [])));
  return { runtime: outputs.find((output) => output.OutputKey === "Runtime")?.OutputValue ?? DEFAULT_RUNTIME, functions };
}

/** hyperfine's process-start comparison of every measured cell and of an empty handler on each runtime, calling the lab's STS. */
function processStart(lab: Lab, cells: Array<BenchVariant & { label: string }>, runtimes: string[], rounds: number, out: string): Promise<ProcessStart> {
  const measured = cells.map((cell) => startCell(cell.label, cell.name, lab.lambda.served(cell.functionName)));
  const empty = runtimes.map((runtime) => {
    const fn = lab.lambda.served(cells.find((cell) => cell.runtime === runtime)!.functionName);
    return { ...EMPTY_HANDLER, label: cellLabel({ runtimes }, { name: EMPTY_HANDLER.variant, runtime }), runtime: fn.runsOn, optDir: fn.optDir };
  });
  console.error(`== process start: hyperfine, ${measured.length + empty.length} commands`);
  return measureProcessStart([...empty, ...measured], { stsEndpoint: lab.sts.endpoint, caFile: lab.sts.caFile }, { runs: Math.min(Math.max(rounds, 3), 30), warmup: 2, exportFile: join(out, "hyperfine.json") });
}

async function main(): Promise<number> {
  const opts = options();
  if (opts.help) return console.log(USAGE), 0;
  let lab: Lab | undefined;
  const stopLab = async () => lab?.stop();
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void stopLab().then(() => process.exit(130)));

  try {
    let client: LambdaClient;
    /** Every variant × runtime cell: the runtime's name and the function that runs the variant on it. */
    let cells: Array<{ runtime: string; functionName: (variant: string) => string | undefined; where: string }>;
    let target: BenchResults["target"];
    if (opts.stack) {
      const stacks = opts.stack.split(",").map((name) => name.trim());
      client = new LambdaClient({ region: opts.region });
      const described = await Promise.all(stacks.map((stack) => describeStack(stack, opts.region)));
      cells = described.map(({ runtime, functions }, i) => ({ runtime, functionName: (variant) => functions.get(variant), where: `stack ${stacks[i]}` }));
      const runtimes = cells.map((cell) => cell.runtime);
      const repeated = runtimes.find((runtime, i) => runtimes.indexOf(runtime) !== i);
      if (repeated) throw new UsageError(`two stacks run on ${repeated}: give one stack per runtime`);
      target = { kind: "aws", stacks, region: await client.config.region() };
    } else {
      // The process-start comparison comes last: a missing hyperfine must not cost a run's worth of cold starts.
      if (opts.runtimes) await hyperfineVersion();
      if (!opts["no-build"]) {
        console.error("== sam build");
        await samBuild({ quiet: true });
      }
      const extraFunctions = opts.ablate ? await buildAblations(opts.variants.find((fn) => fn.logicalId === "Warp")!) : [];
      console.error("== starting the lab (local STS + Lambda API)");
      lab = await startLab({ extraFunctions, runtimes: opts.runtimes, onFunctionLine: opts.verbose ? (fn, line) => console.error(`[${fn}] ${line}`) : undefined });
      client = labClient(lab);
      const served = lab;
      cells = (opts.runtimes ?? [lab.runtime]).map((runtime) => ({
        runtime: runtime.name,
        functionName: (variant) => served.functionOn(variant, runtime.name),
        where: "built template: run without --no-build",
      }));
      target = { kind: "local", endpoint: lab.endpoint };
    }

    const measured = opts.ablate ? [...opts.variants, ...lab!.lambda.functionNames.filter((name) => name.startsWith("Warp-no-")).map((name) => ({ ...opts.variants.find((fn) => fn.logicalId === "Warp")!, logicalId: name }))] : opts.variants;
    const variants: BenchVariant[] = cells.flatMap((cell) =>
      measured.map((fn) => {
        const name = cell.functionName(fn.logicalId);
        if (!name) throw new UsageError(`${fn.logicalId} is not in the ${cell.where}${opts.stack ? ` (no ${fn.logicalId}FunctionName output)` : ""}`);
        return { name: fn.logicalId, runtime: cell.runtime, functionName: name, event: variantEvent(fn.httpPath?.slice(1) ?? fn.logicalId) };
      }),
    );
    const runtimes = cells.map((cell) => cell.runtime);
    const label = (variant: BenchVariant) => cellLabel({ runtimes }, variant);

    const steps = opts.rounds * variants.length;
    console.error(`== ${opts.rounds} rounds x ${measured.length} variants x ${runtimes.length} runtime${runtimes.length > 1 ? "s" : ""} (${runtimes.join(", ")}), order shuffled per round`);
    const progress = createProgress(steps, { stream: process.stderr, label: "cold starts" });
    const startedAt = new Date().toISOString();
    const run = await runBench({
      client,
      variants,
      rounds: opts.rounds,
      runId: randomBytes(4).toString("hex"),
      onStep: ({ round, variant, ok }) => progress.tick(`round ${round + 1}/${opts.rounds} ${label(variant)}${ok ? "" : " FAILED"}`),
    });
    progress.done();

    mkdirSync(opts.out, { recursive: true });
    const versions = target.kind === "local" ? localVersions(opts.runtimes ?? [lab!.runtime]) : {};
    // What the functions said about themselves: each runtime's version and each variant's SDK once, Warp's code cache per cell.
    for (const variant of variants) {
      const facts = run.reported[variant.functionName];
      if (!facts) continue;
      if (facts.runtime) versions[`${variant.runtime} reports`] ??= facts.runtime;
      if (facts.sdkVersion) versions[`sdk (${variant.name})`] ??= facts.sdkVersion;
      if (facts.codeCache && facts.codeCache !== "absent") versions[`V8 code cache (${label(variant)})`] = facts.codeCache;
    }
    const results: BenchResults = { schema: 2, startedAt, finishedAt: "", target, rounds: opts.rounds, variants: run.variants, runtimes, versions, machine: machine() };
    let processStartFailed = false;
    if (lab && opts.runtimes) {
      try {
        results.processStart = await processStart(lab, variants.map((variant) => ({ ...variant, label: label(variant) })), runtimes, opts.rounds, opts.out);
        versions.hyperfine = results.processStart.tool;
      } catch (error) {
        processStartFailed = true; // the cold starts are written all the same
        console.error(`error: the process-start comparison failed: ${error instanceof Error ? error.message : String(error)}`);
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

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof UsageError ? `error: ${error.message}\n\n${USAGE}` : `error: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
