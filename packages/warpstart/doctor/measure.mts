// The doctor's measuring step. Every finding a build can fix (its check's fix, doctor/checks.mts)
// gets a fixed copy of its function in a template of their own, built by `sam build` in the app's
// folder with the app's builders; then each function and its fixed copies are measured in one run
// of forced cold starts in the lab, in a fresh random order every round, and each finding gets the
// paired p50 difference (measure/stats.mts).
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { errorMessage } from "../core/errors.mts";
import { appDirOf } from "../core/paths.mts";
import { removeTree } from "../core/processes.mts";
import type { Progress } from "../core/progress.mts";
import { NESTED_SEPARATOR, readTemplate, type TemplateFunction } from "../core/template.mts";
import { functionEvent } from "../emulation/events.mts";
import { type Lab, labClient } from "../lab/lab.mts";
import { AS_BUILT, type CellResult, type ColdStartCell, type ReportedFacts, runColdStarts } from "../measure/cold-starts.mts";
import { pairedComparison, percentile } from "../measure/stats.mts";
import { onStandInRuntime, relocatedTemplate, samBuildCopy, standInIds, templateOfCopies, writeScratchTemplate } from "./app-build.mts";
import { ArtifactError, readBuiltFunction } from "./artifact.mts";
import { type BuildFix, type CheckId, type Examined, examine, fixFor } from "./checks.mts";
import { type Finding, METRIC, type MeasuredCost } from "./findings.mts";

/** A finding whose fix a build makes, and the logical id of the function's fixed copy. */
interface PlannedFix {
  function: string;
  finding: Finding;
  fix: BuildFix;
  copyId: string;
}

/** The fixed copies, built: they join the lab beside the template's own functions. */
export interface FixedBuilds {
  fixes: PlannedFix[];
  functions: TemplateFunction[];
  /** Removes the scratch folder they were built in. */
  cleanup(): void;
}

/** A logical id (letters and digits only) for the copy of `fn` with `id` fixed, e.g. RuntimeSdkFixedCredentialProviders. */
const copyIdOf = (fn: string, id: string) => `${fn}Fixed${id.replace(/(^|-)(\w)/g, (_, _dash, letter: string) => letter.toUpperCase())}`;

/** Records on each finding no build fixes why it is not measured; returns the others. */
function planFixes(examined: Examined[]): PlannedFix[] {
  return examined.flatMap(({ built, report }) =>
    report.findings.flatMap((finding) => {
      const fix = fixFor(finding.id, built);
      if ("why" in fix) {
        finding.whyNotMeasured = fix.why;
        return [];
      }
      // The fixes are measured in one sam build of the app's template, which names a nested application's functions in that application alone.
      if (built.fn.logicalId.includes(NESTED_SEPARATOR)) {
        finding.whyNotMeasured = `it is a function of a nested application: the doctor measures its fixes on that application's own template (npx warpstart doctor --template ${relative(process.cwd(), built.fn.templateFile)})`;
        return [];
      }
      return [{ function: built.fn.logicalId, finding, fix, copyId: copyIdOf(built.fn.logicalId, finding.id) }];
    }),
  );
}

/**
 * The app's template with its functions replaced by the fixed copies (doctor/app-build.mts); a
 * copy of a function the lab runs on the stand-in runtime is built on it, as the function was.
 */
export function fixesTemplate(templateFile: string, fixes: PlannedFix[], standIns: ReadonlySet<string>): Record<string, unknown> {
  return templateOfCopies(
    relocatedTemplate(templateFile),
    fixes.map(({ function: fn, fix, copyId }) => ({
      of: fn,
      copyId,
      change: (copy) => {
        if (standIns.has(fn)) onStandInRuntime(copy);
        fix.rewrite(copy);
      },
    })),
  );
}

/** SAM's own line saying why a build failed (its "Error: ..." line), else its output's last line. */
export function samFailureLine(output: string): string {
  const lines = output
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  return lines.find((line) => line.startsWith("Error: ")) ?? lines.at(-1) ?? "sam build failed";
}

/**
 * Builds every fixable finding's copy: all in one sam build, and when that fails, each alone, so
 * one fix that does not build costs only its own measurement. A copy is measured only once its
 * own build shows the finding gone.
 */
export async function buildFixes(
  templateFile: string,
  overrides: Record<string, string>,
  examined: Examined[],
  say: (line: string) => void,
): Promise<FixedBuilds> {
  const fixes = planFixes(examined);
  const scratch = mkdtempSync(join(tmpdir(), "warpstart-doctor-"));
  const cleanup = () => removeTree(scratch);
  if (fixes.length === 0) return { fixes, functions: [], cleanup };
  const fixesFile = writeScratchTemplate(templateFile, scratch, fixesTemplate(templateFile, fixes, standInIds(examined.map(({ built }) => built.fn))));
  const build = (buildDir: string, resources?: string[]) => samBuildCopy(fixesFile, appDirOf(templateFile), buildDir, overrides, resources);
  /** Each copy as built, or why it is not. */
  const copies = new Map<string, TemplateFunction | string>();
  const readBuilt = (buildDir: string, ids: string[]) => {
    const functions = readTemplate(join(buildDir, "template.yaml"), overrides).functions;
    for (const id of ids) copies.set(id, functions.find((fn) => fn.logicalId === id) ?? `sam build did not build the fixed copy ${id}`);
  };
  try {
    await build(join(scratch, "build"));
    readBuilt(
      join(scratch, "build"),
      fixes.map((fix) => fix.copyId),
    );
  } catch {
    say("the fixed copies did not build together: building each alone");
    for (const { copyId } of fixes) {
      try {
        await build(join(scratch, `build-${copyId}`), [copyId]);
        readBuilt(join(scratch, `build-${copyId}`), [copyId]);
      } catch (error) {
        copies.set(copyId, `the build with the fix failed: ${samFailureLine(errorMessage(error))}`);
      }
    }
  }
  const measurable: PlannedFix[] = [];
  for (const fix of fixes) {
    const copy = copies.get(fix.copyId)!;
    const why = typeof copy === "string" ? copy : await whyNotFixed(copy, fix.finding.id);
    if (why) fix.finding.whyNotMeasured = why;
    else measurable.push(fix);
  }
  const functions = measurable.map((fix) => copies.get(fix.copyId) as TemplateFunction);
  return { fixes: measurable, functions, cleanup };
}

/** Why a fixed copy cannot be measured: its build still has the finding, or cannot be read (null: the fix is in). */
async function whyNotFixed(copy: TemplateFunction, id: CheckId): Promise<string | null> {
  try {
    const still = examine(await readBuiltFunction(copy)).findings.find((found) => found.id === id);
    return still ? `the build with the fix still has it: ${still.message}` : null;
  } catch (error) {
    if (!(error instanceof ArtifactError)) throw error;
    return `the doctor cannot read the build with the fix: ${error.message}`;
  }
}

/** What one finding's fix bought, from the run's samples of the function as it is and of its fixed copy. */
export function measuredCost(asIs: CellResult, fixed: CellResult, metric: MeasuredCost["metric"]): MeasuredCost | string {
  const byRound = (cell: CellResult) =>
    new Map(
      cell.samples.flatMap((sample) => {
        const value = metric === "init" ? sample.initMs : sample.warmE2eMs;
        return value === null ? [] : [[sample.round, value] as const];
      }),
    );
  const compared = pairedComparison(byRound(asIs), byRound(fixed));
  if (compared.n === 0) {
    // The runtime's first line says what failed (Node adds advice on the lines after it).
    const said = (failure: CellResult["failures"][number] | undefined) => (failure ? `${failure.errorType}: ${failure.message.split("\n")[0]}` : "");
    const alone = [...byRound(fixed).values()];
    // What a user asks of a function that fails as it is: whether this build runs, and how fast.
    if (asIs.samples.length === 0 && alone.length > 0)
      return `the function as it is fails every round (${said(asIs.failures[0])}), so there is no difference to give; this build completes: ${METRIC[metric]} p50 ${percentile(alone, 50).toFixed(1)} ms (${alone.length} round${alone.length === 1 ? "" : "s"})`;
    const failure = [...asIs.failures, ...fixed.failures][0];
    return `no round measured both${failure ? `: ${said(failure)}` : ""}`;
  }
  return {
    metric,
    rounds: compared.n,
    asIsMs: compared.medianA!,
    fixedMs: compared.medianB!,
    deltaMs: compared.diffMs!,
    deltaCi95: compared.diffCi95,
    ratio: compared.ratio!,
    ratioCi95: compared.ratioCi95,
  };
}

/** One copy measured against its function: a finding's fixed copy, or the function's source built in a profile. */
export interface Comparison {
  function: string;
  copyId: string;
  /** How progress names the copy, e.g. "Hello with commonjs fixed". */
  label: string;
  metric: MeasuredCost["metric"];
  /** Takes what the copy bought, or why it was not measured, and what its cold starts said of themselves. */
  record(cost: MeasuredCost | string, reported: ReportedFacts | undefined): void;
}

/** Each fix as a comparison that records its cost on its finding. */
export const fixComparisons = (builds: FixedBuilds): Comparison[] =>
  builds.fixes.map((fix) => ({
    function: fix.function,
    copyId: fix.copyId,
    label: `${fix.function} with ${fix.finding.id} fixed`,
    metric: fix.fix.metric,
    record(cost) {
      if (typeof cost === "string") fix.finding.whyNotMeasured = cost;
      else Object.assign(fix.finding, { measured: cost, whyNotMeasured: null });
    },
  }));

/** The functions compared with a copy, each once. */
const originalsOf = (comparisons: Comparison[]) => [...new Set(comparisons.map((comparison) => comparison.function))];

/** Measures each copy against its function over `rounds` rounds in the lab, in one run of forced cold starts, and records what each bought. */
export async function measureComparisons(lab: Lab, comparisons: Comparison[], rounds: number, progress: Progress): Promise<void> {
  if (comparisons.length === 0) return;
  const cellOf = (name: string, functionName: string, original: string): ColdStartCell => ({
    name,
    function: original,
    profile: AS_BUILT,
    runtime: lab.lambda.served(functionName).runsOn.name,
    functionName,
    event: () => functionEvent(lab.lambda.served(original)),
  });
  const cells = [
    ...originalsOf(comparisons).map((fn) => cellOf(fn, fn, fn)),
    ...comparisons.map((comparison) => cellOf(comparison.label, comparison.copyId, comparison.function)),
  ];
  const run = await runColdStarts({
    client: labClient(lab),
    cells,
    rounds,
    runId: randomBytes(4).toString("hex"),
    retire: (functionName) => lab.lambda.reclaimIdle(functionName),
    initOfFailedHandlers: true,
    onStep: ({ round, cell, ok }) => progress.tick(`round ${round + 1}/${rounds} ${cell.name}${ok ? "" : " FAILED"}`),
  });
  const resultOf = (functionName: string) => run.cells.find((cell) => cell.functionName === functionName)!;
  for (const comparison of comparisons)
    comparison.record(measuredCost(resultOf(comparison.function), resultOf(comparison.copyId), comparison.metric), run.reported[comparison.copyId]);
}

/** Cold starts the measuring step makes: every function compared and every copy, each round. */
export const coldStartsOf = (comparisons: Comparison[], rounds: number) => rounds * (originalsOf(comparisons).length + comparisons.length);
