// `npm run bench -- [flags]`: forced cold starts of every variant, interleaved, through the
// Lambda Invoke API of the local lab (default) or of a deployed stack (--stack). Prints the
// tables and writes DIR/results.json, DIR/report.md and DIR/chart.svg.
import { DescribeStacksCommand, CloudFormationClient } from "@aws-sdk/client-cloudformation";
import { LambdaClient } from "@aws-sdk/client-lambda";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { type Lab, labClient, startLab } from "../lab/lab.mts";
import { EVENTS_DIR, PROJECT_ROOT } from "../lab/paths.mts";
import { samBuild } from "../lab/sam.mts";
import { type TemplateFunction, templateFunctions } from "../lab/template.mts";
import { buildVariant } from "../build/build.mts";
import { warpAblations } from "../build/variants.mts";
import { initChartSvg } from "./chart.mts";
import { localVersions, machine } from "./environment.mts";
import { createProgress } from "./progress.mts";
import { consoleSummary, markdownReport } from "./report.mts";
import type { BenchResults } from "./results.mts";
import { type BenchVariant, runBench } from "./run.mts";

const USAGE = `usage: npm run bench -- [--rounds N] [--variants A,B,...] [--ablate] [--out DIR] [--stack NAME [--region R]] [--no-build] [--verbose]
  --rounds N       forced cold starts per variant (default 30)
  --variants LIST  functions of template.yaml to measure (default: all)
  --ablate         measure Optimized, Warp and Warp without each of its optimizations in turn (local only)
  --out DIR        where results.json, report.md and chart.svg go (default results/<date-time>)
  --stack NAME     measure a deployed stack (sam deploy) instead of the local lab
  --region R       the stack's region (default: AWS_REGION or your AWS config)
  --no-build       locally, use the existing .aws-sam/build instead of running sam build
  --verbose        print every line the local functions log`;

class UsageError extends Error {}

function options() {
  const { values } = parseArgs({
    options: {
      rounds: { type: "string", default: "30" },
      variants: { type: "string" },
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
  const names = values.ablate ? ["Optimized", "Warp"] : values.variants ? values.variants.split(",").map((name) => name.trim()) : known.map((fn) => fn.logicalId);
  const unknown = names.filter((name) => !known.some((fn) => fn.logicalId === name));
  if (unknown.length) throw new UsageError(`unknown variant(s) ${unknown.join(", ")}; template.yaml has ${known.map((fn) => fn.logicalId).join(", ")}`);
  const stamp = new Date().toISOString().replace(/[:T]/g, "-").slice(0, 19);
  return { ...values, rounds, variants: known.filter((fn) => names.includes(fn.logicalId)), out: resolve(values.out ?? join(PROJECT_ROOT, "results", stamp)) };
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

/** Function names of a deployed stack, from its <Variant>FunctionName outputs. */
async function stackFunctionNames(stack: string, region: string | undefined): Promise<Map<string, string>> {
  const cloudformation = new CloudFormationClient({ region });
  const described = await cloudformation.send(new DescribeStacksCommand({ StackName: stack }));
  const outputs = described.Stacks?.[0]?.Outputs ?? [];
  return new Map(outputs.flatMap((output) => (output.OutputKey?.endsWith("FunctionName") && output.OutputValue ? [[output.OutputKey.slice(0, -"FunctionName".length), output.OutputValue]] : [])));
}

async function main(): Promise<number> {
  const opts = options();
  if (opts.help) return console.log(USAGE), 0;
  let lab: Lab | undefined;
  const stopLab = async () => lab?.stop();
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void stopLab().then(() => process.exit(130)));

  try {
    let client: LambdaClient;
    let functionName: (variant: string) => string | undefined;
    let target: BenchResults["target"];
    if (opts.stack) {
      const names = await stackFunctionNames(opts.stack, opts.region);
      client = new LambdaClient({ region: opts.region });
      functionName = (variant) => names.get(variant);
      target = { kind: "aws", stack: opts.stack, region: await client.config.region() };
    } else {
      if (!opts["no-build"]) {
        console.error("== sam build");
        await samBuild({ quiet: true });
      }
      const extraFunctions = opts.ablate ? await buildAblations(opts.variants.find((fn) => fn.logicalId === "Warp")!) : [];
      console.error("== starting the lab (local STS + Lambda API)");
      lab = await startLab({ extraFunctions, onFunctionLine: opts.verbose ? (fn, line) => console.error(`[${fn}] ${line}`) : undefined });
      client = labClient(lab);
      functionName = (variant) => (lab!.lambda.functionNames.includes(variant) ? variant : undefined);
      target = { kind: "local", endpoint: lab.endpoint };
    }

    const measured = opts.ablate ? [...opts.variants, ...lab!.lambda.functionNames.filter((name) => name.startsWith("Warp-no-")).map((name) => ({ ...opts.variants.find((fn) => fn.logicalId === "Warp")!, logicalId: name }))] : opts.variants;
    const variants: BenchVariant[] = measured.map((fn) => {
      const name = functionName(fn.logicalId);
      if (!name) throw new UsageError(`${fn.logicalId} is not in the ${opts.stack ? `stack ${opts.stack} (no ${fn.logicalId}FunctionName output)` : "built template: run without --no-build"}`);
      return { name: fn.logicalId, functionName: name, event: JSON.parse(readFileSync(join(EVENTS_DIR, `${fn.httpPath?.slice(1) ?? fn.logicalId.toLowerCase()}.json`), "utf8")) };
    });

    const steps = opts.rounds * variants.length;
    console.error(`== ${opts.rounds} rounds x ${variants.length} variants (${variants.map((v) => v.name).join(", ")}), order shuffled per round`);
    const progress = createProgress(steps, { stream: process.stderr, label: "cold starts" });
    const startedAt = new Date().toISOString();
    const run = await runBench({
      client,
      variants,
      rounds: opts.rounds,
      runId: randomBytes(4).toString("hex"),
      onStep: ({ round, variant, ok }) => progress.tick(`round ${round + 1}/${opts.rounds} ${variant}${ok ? "" : " FAILED"}`),
    });
    progress.done();

    const versions = target.kind === "local" ? localVersions() : {};
    for (const [variant, facts] of Object.entries(run.reported)) {
      if (facts.nodeVersion) versions[`node (${variant})`] = facts.nodeVersion;
      if (facts.sdkVersion) versions[`sdk (${variant})`] = facts.sdkVersion;
      if (facts.codeCache && facts.codeCache !== "absent") versions[`V8 code cache (${variant})`] = facts.codeCache;
    }
    const results: BenchResults = { schema: 1, startedAt, finishedAt: new Date().toISOString(), target, rounds: opts.rounds, variants: run.variants, versions, machine: machine() };

    mkdirSync(opts.out, { recursive: true });
    writeFileSync(join(opts.out, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(join(opts.out, "report.md"), markdownReport(results));
    writeFileSync(join(opts.out, "chart.svg"), initChartSvg(results));
    console.log(consoleSummary(results));
    const report = join(opts.out, "report.md");
    const shown = relative(process.cwd(), report);
    console.log(`\nReport: ${shown.startsWith("..") ? report : shown} (with chart.svg and the raw samples in results.json)`);
    const failures = run.variants.reduce((sum, variant) => sum + variant.failures.length, 0);
    return failures === steps ? 1 : 0;
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
