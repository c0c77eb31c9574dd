// `npm run doctor -- [options] [Function ...]` (USAGE): builds a SAM app (sam build in its folder,
// with whatever builder each function declares), examines each Node.js function's build for the
// cold-start pitfalls of doctor/checks.mts, measures in the lab what fixing each would buy
// (doctor/measure.mts), and reports them: a table per function on stdout, Markdown, JSON. With
// --fail-on, exits 1 when a finding of that severity or worse exists (for CI); with --fix, writes
// the fixes it measured into the template (doctor/apply-fixes.mts).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { errorMessage, parseCommandLine, runCommand, UsageError, wholeNumber } from "../core/cli.mts";
import { appDirOf, builtTemplateOf, PROJECT_TEMPLATE } from "../core/paths.mts";
import { createProgress } from "../core/progress.mts";
import { runtimeOf } from "../core/runtimes.mts";
import { samconfigParameterOverrides } from "../core/samconfig.mts";
import { readTemplate, type SamTemplate } from "../core/template.mts";
import { describeFidelity } from "../lab/fidelity.mts";
import { withLab } from "../lab/lab.mts";
import { buildApp } from "./app-build.mts";
import { fixedTemplate, fixSection, writeFixedTemplate } from "./apply-fixes.mts";
import { ArtifactError, readBuiltFunction } from "./artifact.mts";
import { type Examined, examine, runtimeLabel, whyNotExamined } from "./checks.mts";
import { traceInLab } from "./dynamic.mts";
import { type DoctorReport, failsAt, type Severity, STATIC_ONLY } from "./findings.mts";
import { STAND_IN_RUNTIME, whyStandIn } from "./lambda-runtimes.mts";
import { buildFixes, coldStartsOf, measureFixes } from "./measure.mts";
import { renderJson, renderMarkdown, renderText } from "./report.mts";

const DEFAULT_ROUNDS = 15;

const USAGE = `usage: npm run doctor -- [--template FILE] [--json FILE] [--markdown FILE] [--rounds N] [--static] [--fail-on warn|error] [--no-build] [--fix [--dry-run]] [Function ...]
  --template FILE  the SAM template (default: template.yaml); sam build builds its app first
  --json FILE      also write the report as JSON
  --markdown FILE  also write the report as Markdown
  --rounds N       cold starts of each function and of each of its fixes, interleaved (default ${DEFAULT_ROUNDS})
  --static         the static checks only: no lab, nothing measured
  --fail-on S      exit 1 when a finding of severity S (warn or error) or worse exists
  --no-build       examine the app's last build (.aws-sam/build) instead of running sam build
  --fix            write the fixes the doctor built and measured into the template (its build settings only, the rest of its text as it is) and print the diff
  --dry-run        with --fix: print the diff, write nothing
  Function ...     the functions to examine (default: every Node.js function of the template)`;

/** Progress, on stderr: stdout is the report. */
const say = (line: string) => console.error(`== ${line}`);

/** A template the doctor cannot read, in one line (YAML's errors add a code frame). */
function readOrExplain(file: string, overrides: Record<string, string>): SamTemplate {
  try {
    return readTemplate(file, overrides);
  } catch (error) {
    throw new Error(errorMessage(error).split("\n")[0]);
  }
}

function failOn(raw: string | undefined): Severity | undefined {
  if (raw === undefined) return undefined;
  if (raw !== "warn" && raw !== "error") throw new UsageError(`--fail-on must be warn or error, not "${raw}"`);
  return raw;
}

/** The lab's part: a traced cold start of each function, then each fixable finding built fixed and measured against its function as it is. */
async function inTheLab(templateFile: string, overrides: Record<string, string>, examined: Examined[], rounds: number, report: DoctorReport): Promise<boolean> {
  // The lab runs the runtimes of core/runtimes.mts, and Lambda's other Node.js runtimes on a stand-in: a function on another is examined, not run.
  const runnable = examined.filter(({ built, report: fn }) => {
    try {
      runtimeOf(whyStandIn(built.fn.runtime) ? { ...built.fn, runtime: STAND_IN_RUNTIME } : built.fn);
      return true;
    } catch (error) {
      fn.whyNotTraced = errorMessage(error);
      for (const finding of fn.findings) finding.whyNotMeasured = fn.whyNotTraced;
      return false;
    }
  });
  if (runnable.length === 0) return true;
  say("building each finding's fix (sam build of a template of fixed copies)");
  const builds = await buildFixes(templateFile, overrides, runnable, say);
  try {
    say("starting the lab (local AWS with the template's resources, Lambda API)");
    await withLab(
      {
        template: builtTemplateOf(templateFile),
        parameterOverrides: overrides,
        only: runnable.map(({ built }) => built.fn.logicalId),
        extraFunctions: builds.functions,
        withoutForeignLayers: true,
      },
      async (lab) => {
        report.measuring = { rounds, lab: describeFidelity(lab.fidelity) };
        // A function the lab refused (an Environment it cannot evaluate) costs only its own trace and measurements.
        const cannotRun = (name: string) => {
          const refused = lab.refused.get(name);
          return refused ? `the lab cannot run it: ${refused}` : null;
        };
        for (const fix of builds.fixes) {
          const refused = cannotRun(fix.function) ?? cannotRun(fix.copyId);
          if (refused) fix.finding.whyNotMeasured = refused;
        }
        builds.fixes = builds.fixes.filter((fix) => !lab.refused.has(fix.function) && !lab.refused.has(fix.copyId));
        for (const [index, examinedFunction] of runnable.entries()) {
          const { built, report: fn } = examinedFunction;
          const refused = cannotRun(fn.name);
          if (refused) {
            fn.whyNotTraced = refused;
            continue;
          }
          const caveats = [whyStandIn(built.fn.runtime)];
          if (built.fn.foreignLayers.length > 0)
            caveats.push(`traced and measured without its layer ${built.fn.foreignLayers.join(" and ")}: the lab cannot fetch a published layer`);
          fn.labCaveat = caveats.filter(Boolean).join("; ") || null;
          say(`tracing a cold start of ${fn.name} (${index + 1}/${runnable.length})`);
          await traceInLab(lab, examinedFunction);
        }
        const total = coldStartsOf(builds, rounds);
        if (total === 0) return;
        say(`measuring ${builds.fixes.length} fix${builds.fixes.length === 1 ? "" : "es"}: ${total} cold starts, order shuffled per round`);
        const progress = createProgress(total, { label: "cold starts" });
        await measureFixes(lab, builds, rounds, progress);
        progress.done();
      },
    );
    return true;
  } catch (error) {
    // The static findings stand; the ones left to measure say why they are not.
    console.error(`error: the lab failed, so nothing more is measured: ${errorMessage(error)}`);
    const why = `the lab failed: ${errorMessage(error).split("\n")[0]}`;
    for (const { finding } of builds.fixes) if (!finding.measured) finding.whyNotMeasured = why;
    for (const fn of report.functions) if (!fn.init && fn.whyNotTraced === STATIC_ONLY) fn.whyNotTraced = why;
    return false;
  } finally {
    builds.cleanup();
  }
}

async function main(): Promise<number> {
  const { values, positionals } = parseCommandLine({
    options: {
      template: { type: "string", default: PROJECT_TEMPLATE },
      json: { type: "string" },
      markdown: { type: "string" },
      "fail-on": { type: "string" },
      rounds: { type: "string" },
      static: { type: "boolean" },
      "no-build": { type: "boolean" },
      fix: { type: "boolean" },
      "dry-run": { type: "boolean" },
      help: { type: "boolean" },
    },
    allowPositionals: true,
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const threshold = failOn(values["fail-on"]);
  const rounds = wholeNumber("rounds", values.rounds, 1, 1000) ?? DEFAULT_ROUNDS;
  if (values.static && values.rounds !== undefined) throw new UsageError("--static measures nothing: leave out --rounds");
  if (values["dry-run"] && !values.fix) throw new UsageError("--dry-run goes with --fix: it prints the diff --fix would write");
  if (values.fix && values.static) throw new UsageError("--fix writes the fixes the doctor built and measured: leave out --static");
  const templateFile = resolve(values.template);
  const shown = relative(process.cwd(), templateFile) || templateFile;
  const overrides = samconfigParameterOverrides(join(appDirOf(templateFile), "samconfig.toml"), "build");
  const source = readOrExplain(templateFile, overrides);
  // What --fix edits, and checks unchanged before it writes.
  const templateText = readFileSync(templateFile, "utf8");

  const names = source.functions.map((fn) => fn.logicalId);
  const unknown = positionals.filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    throw new UsageError(
      `${unknown.join(", ")} ${unknown.length === 1 ? "is not a function" : "are not functions"} of ${shown}; its functions: ${names.join(", ") || "none"}`,
    );
  }
  const chosen = positionals.length > 0 ? source.functions.filter((fn) => positionals.includes(fn.logicalId)) : source.functions;
  const skipped = chosen.flatMap((fn) => {
    const why = whyNotExamined(fn);
    return why ? [{ name: fn.logicalId, runtime: runtimeLabel(fn), why }] : [];
  });
  let examined = chosen.filter((fn) => !skipped.some((skip) => skip.name === fn.logicalId));
  if (examined.length === 0) {
    const reasons = skipped.map((fn) => `${fn.name}: ${fn.why}`).join("; ");
    throw new Error(`${shown} has no Node.js function to examine${reasons ? ` (${reasons})` : ""}`);
  }

  if (values["no-build"]) {
    if (!existsSync(builtTemplateOf(templateFile))) throw new Error(`--no-build: ${shown} has not been built yet (no .aws-sam/build/template.yaml)`);
  } else {
    // sam build takes one resource or all of them.
    const only = positionals.length === 1 ? positionals : undefined;
    const app = relative(process.cwd(), appDirOf(templateFile)) || ".";
    say(`sam build${only ? ` ${only[0]}` : ""} in ${app} (SAM's output is shown if it fails)`);
    let leftOut: Map<string, string>;
    try {
      ({ leftOut } = await buildApp(templateFile, overrides, only, say));
    } catch (error) {
      throw new Error(`sam build of the app in ${app} failed, so there is nothing to examine: ${errorMessage(error)}`);
    }
    for (const [name, why] of leftOut) {
      const fn = examined.find((candidate) => candidate.logicalId === name);
      if (fn) skipped.push({ name, runtime: runtimeLabel(fn), why });
    }
    examined = examined.filter((fn) => !leftOut.has(fn.logicalId));
    if (examined.length === 0) throw new Error(`${shown} has no function the doctor can build: ${skipped.map((fn) => `${fn.name}: ${fn.why}`).join("; ")}`);
  }

  const built = readOrExplain(builtTemplateOf(templateFile), overrides);
  const report: DoctorReport = { template: templateFile, functions: [], skipped, measuring: null };
  const examinedBuilds: Examined[] = [];
  for (const [index, fn] of examined.entries()) {
    say(`examining ${fn.logicalId} (${index + 1}/${examined.length})`);
    const builtFn = built.functions.find((candidate) => candidate.logicalId === fn.logicalId);
    try {
      if (!builtFn) throw new ArtifactError("it is not in the built template: was it built?");
      // Its runtime is the template's, not the stand-in it may have been built on (doctor/app-build.mts).
      const builtFunction = await readBuiltFunction({ ...builtFn, runtime: fn.runtime });
      const examination = examine(builtFunction);
      report.functions.push(examination);
      examinedBuilds.push({ built: builtFunction, report: examination });
    } catch (error) {
      if (!(error instanceof ArtifactError)) throw error;
      report.skipped.push({ name: fn.logicalId, runtime: runtimeLabel(fn), why: error.message });
    }
  }
  const labFailed = !values.static && examinedBuilds.length > 0 && !(await inTheLab(templateFile, overrides, examinedBuilds, rounds, report));

  console.log(renderText(report));
  if (values.json !== undefined) writeFileSync(resolve(values.json), renderJson(report));
  if (values.markdown !== undefined) writeFileSync(resolve(values.markdown), renderMarkdown(report));
  let fixFailed = false;
  if (values.fix) {
    const fixed = fixedTemplate(templateFile, templateText, examinedBuilds);
    console.log(fixSection(shown, templateText, fixed, Boolean(values["dry-run"])));
    try {
      if (!values["dry-run"] && fixed.applied.length > 0) writeFixedTemplate(templateFile, templateText, fixed.text);
    } catch (error) {
      console.error(`error: ${errorMessage(error)}`);
      fixFailed = true;
    }
  }
  return labFailed || fixFailed || (threshold && failsAt(report, threshold)) ? 1 : 0;
}

runCommand(USAGE, main);
