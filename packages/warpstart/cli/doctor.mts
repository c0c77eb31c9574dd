// `warpstart doctor [Function ...]`: builds a SAM app (sam build in its folder,
// with whatever builder each function declares), examines each Node.js function's build for the
// cold-start pitfalls of doctor/checks.mts, measures in the lab what fixing each would buy
// (doctor/measure.mts), and reports them: a table per function on stdout, Markdown, JSON. With
// --fail-on, exits 1 when a finding of that severity or worse exists (for CI); with --fix, writes
// the fixes it measured into the template (adoption/fixes.mts).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { fixedTemplate, fixSection } from "../adoption/fixes.mts";
import { writeRewrites } from "../adoption/write.mts";
import { PEER_NAMES, PROFILE_NAMES } from "../builder/profiles.mts";
import { errorMessage } from "../core/errors.mts";
import { assertFunctionsOf, defineCommand, NO_BUILD_OPTION, type Parsed, TEMPLATE_OPTION, UsageError } from "../core/options.mts";
import { appDirOf, builtTemplateOf } from "../core/paths.mts";
import { createProgress } from "../core/progress.mts";
import { runtimeOf } from "../core/runtimes.mts";
import { readTemplate, type SamTemplate, type TemplateFunction } from "../core/template.mts";
import { buildApp } from "../doctor/app-build.mts";
import { ArtifactError, readBuiltFunction } from "../doctor/artifact.mts";
import { type Examined, examine } from "../doctor/checks.mts";
import { traceInLab } from "../doctor/dynamic.mts";
import { COMPARED_PROFILES, type ComparedProfile, type DoctorReport, failsAt, profilesNotMeasured, type Severity, STATIC_ONLY } from "../doctor/findings.mts";
import { runtimeLabel, STAND_IN_RUNTIME, whyNotExamined, whyStandIn } from "../doctor/lambda-runtimes.mts";
import { buildFixes, type Comparison, coldStartsOf, fixComparisons, measureComparisons } from "../doctor/measure.mts";
import { buildProfiles, type ProfileBuilds, profileComparisons } from "../doctor/profile-builds.mts";
import { renderJson, renderMarkdown, renderText } from "../doctor/report.mts";
import { type EnvVars, readEnvVars } from "../emulation/env-vars.mts";
import { eventNote } from "../emulation/events.mts";
import { describeFidelity } from "../lab/fidelity.mts";
import { localAwsNotes, PUBLISHED_LAYER_HINT, provisionFailureLines, withLab } from "../lab/lab.mts";
import { ENV_VARS_OPTION, PARAMETER_OPTIONS, parameterOverridesFrom } from "../lab/parameters.mts";

const OPTIONS = {
  ...TEMPLATE_OPTION,
  json: { value: "FILE", help: "also write the report as JSON" },
  markdown: { value: "FILE", help: "also write the report as Markdown" },
  rounds: { value: "N", whole: [1, 1000], default: "15", help: "cold starts of each function and of each of its fixes, interleaved" },
  static: { help: "the static checks only: no lab, nothing measured" },
  "fail-on": { value: "S", oneOf: ["warn", "error"], help: "exit 1 when a finding of severity S (warn or error) or worse exists" },
  ...NO_BUILD_OPTION,
  profiles: {
    value: "LIST",
    help: `this template's profiles to build each function's source in and measure against it\n(default: ${COMPARED_PROFILES.join(",")}; also ${[...PROFILE_NAMES.filter((name) => !(COMPARED_PROFILES as readonly string[]).includes(name)), ...PEER_NAMES].join(", ")}; none: no builds)`,
  },
  fix: { help: "write the fixes the doctor built and measured into the template (its build settings only,\nthe rest of its text as it is) and print the diff" },
  "dry-run": { help: "with --fix: print the diff, write nothing" },
  ...PARAMETER_OPTIONS,
  ...ENV_VARS_OPTION,
} as const;

/** Progress, on stderr: stdout is the report. */
const say = (line: string) => console.error(`== ${line}`);

/** A template the doctor cannot read, in one line (YAML's errors add a code frame). */
function readOrExplain(file: string, overrides: Record<string, string>): SamTemplate {
  try {
    return readTemplate(file, overrides);
  } catch (error) {
    throw new Error(errorMessage(error).split("\n")[0], { cause: error });
  }
}

/** --profiles: the profiles asked for, each the pipeline's or a peer's ("none": no profile builds). */
function profilesAsked(raw: string | undefined): ComparedProfile[] {
  if (raw === undefined) return [...COMPARED_PROFILES];
  if (raw === "none") return [];
  const known: string[] = [...PROFILE_NAMES, ...PEER_NAMES];
  const asked = raw.split(",").map((name) => name.trim());
  const unknown = asked.filter((name) => !known.includes(name));
  if (unknown.length > 0 || asked.length === 0)
    throw new UsageError(`--profiles takes ${known.join(", ")} (comma-separated) or none, not "${unknown.join(",") || raw}"`);
  return asked as ComparedProfile[];
}

/** The comparisons `whyNot` has no reason against; each of the others records its reason. */
function measurableOf(comparisons: Comparison[], whyNot: (comparison: Comparison) => string | null): Comparison[] {
  return comparisons.filter((comparison) => {
    const why = whyNot(comparison);
    if (why) comparison.record(why, undefined);
    return !why;
  });
}

/** A function examined, with its resource as the app's template has it (the source its profiles' builds read). */
type ExaminedSource = Examined & { source: TemplateFunction };

/**
 * The lab's part: a traced cold start of each function, then each fixable finding built fixed and
 * each function's source built in this template's profiles, all measured against the function as
 * it is in one interleaved run.
 */
async function inTheLab(
  templateFile: string,
  overrides: { build: Record<string, string>; lab: Record<string, string>; envVars: EnvVars },
  examined: ExaminedSource[],
  rounds: number,
  report: DoctorReport,
): Promise<boolean> {
  // The lab runs the runtimes of core/runtimes.mts, and Lambda's other Node.js runtimes on a stand-in: a function on another is examined, not run.
  const runnable = examined.filter(({ built, report: fn }) => {
    try {
      runtimeOf(whyStandIn(built.fn.runtime) ? { ...built.fn, runtime: STAND_IN_RUNTIME } : built.fn);
      return true;
    } catch (error) {
      fn.whyNotTraced = errorMessage(error);
      for (const measurable of [...fn.findings, ...fn.profiles]) measurable.whyNotMeasured = fn.whyNotTraced;
      return false;
    }
  });
  if (runnable.length === 0) return true;
  say("building each finding's fix (sam build of a template of fixed copies)");
  const builds = await buildFixes(templateFile, overrides.build, runnable, say);
  let profiles: ProfileBuilds | undefined;
  try {
    profiles = await buildProfiles(templateFile, overrides.build, runnable, say);
    say("starting the lab (local AWS with the template's resources, Lambda API)");
    await withLab(
      {
        template: builtTemplateOf(templateFile),
        parameterOverrides: overrides.lab,
        envVars: overrides.envVars,
        only: runnable.map(({ built }) => built.fn.logicalId),
        extraFunctions: [...builds.functions, ...profiles.functions],
        withoutForeignLayers: true,
      },
      async (lab) => {
        for (const line of localAwsNotes(lab)) say(line);
        report.measuring = { rounds, lab: describeFidelity(lab.fidelity) };
        for (const line of provisionFailureLines(lab)) say(line);
        // A function the lab refused (a layer it cannot fetch) costs only its own trace and measurements.
        const cannotRun = (name: string) => {
          const refused = lab.refused.get(name);
          return refused ? `the lab cannot run it: ${refused}` : null;
        };
        const refused = (comparison: Comparison) => cannotRun(comparison.function) ?? cannotRun(comparison.copyId);
        const fixesServed = measurableOf(fixComparisons(builds), refused);
        // A profile's build may run where the function as it is does not: measured alone, and said so.
        const builtInProfiles = measurableOf(profileComparisons(profiles!), refused);
        for (const [index, examinedFunction] of runnable.entries()) {
          const { built, report: fn } = examinedFunction;
          const refused = cannotRun(fn.name);
          if (refused) {
            fn.whyNotTraced = refused;
            continue;
          }
          const caveats = [whyStandIn(built.fn.runtime)];
          if (built.fn.foreignLayers.length > 0)
            caveats.push(
              `traced and measured without its layer ${built.fn.foreignLayers.join(" and ")}: the lab cannot fetch a published layer; ${PUBLISHED_LAYER_HINT}`,
            );
          // The event it was given, when that is {} for want of one, or holds a placeholder; its environment's placeholders.
          caveats.push(eventNote(built.fn), lab.placeholders.get(fn.name) ?? null);
          fn.labCaveat = caveats.filter(Boolean).join("; ") || null;
          say(`tracing a cold start of ${fn.name} (${index + 1}/${runnable.length})`);
          await traceInLab(lab, examinedFunction);
        }
        // A function whose INIT failed in its trace has nothing to compare a fix with.
        const initFailed = new Set(report.functions.filter((fn) => fn.findings.some((found) => found.id === "init-error")).map((fn) => fn.name));
        const whyNotMeasured = (comparison: Comparison) =>
          initFailed.has(comparison.function) ? "its INIT fails in the lab (init-error): there is nothing to measure until INIT completes" : null;
        const fixes = measurableOf(fixesServed, whyNotMeasured);
        const measurable = [...fixes, ...builtInProfiles];
        const total = coldStartsOf(measurable, rounds);
        if (total === 0) return;
        say(
          `measuring ${fixes.length} fix${fixes.length === 1 ? "" : "es"} and ${builtInProfiles.length} profile build${builtInProfiles.length === 1 ? "" : "s"}: ${total} cold starts, order shuffled per round`,
        );
        const progress = createProgress(total, { label: "cold starts" });
        await measureComparisons(lab, measurable, rounds, progress);
        progress.done();
      },
    );
    return true;
  } catch (error) {
    // The static findings stand; the ones left to measure say why they are not.
    console.error(`error: the lab failed, so nothing more is measured: ${errorMessage(error)}`);
    const why = `the lab failed: ${errorMessage(error).split("\n")[0]}`;
    for (const fn of report.functions) {
      for (const measurable of [...fn.findings, ...fn.profiles])
        if (!measurable.measured && measurable.whyNotMeasured === STATIC_ONLY) measurable.whyNotMeasured = why;
      if (!fn.init && fn.whyNotTraced === STATIC_ONLY) fn.whyNotTraced = why;
    }
    for (const { finding } of builds.fixes) if (!finding.measured) finding.whyNotMeasured = why;
    for (const { result } of profiles?.planned ?? []) if (!result.measured) result.whyNotMeasured = why;
    return false;
  } finally {
    builds.cleanup();
    profiles?.cleanup();
  }
}

async function main({ values, positionals }: Parsed<typeof OPTIONS>): Promise<number> {
  const threshold = values["fail-on"] as Severity | undefined;
  const rounds = values.rounds;
  const profiles = profilesAsked(values.profiles);
  const templateFile = resolve(values.template);
  const shown = relative(process.cwd(), templateFile) || templateFile;
  const overrides = parameterOverridesFrom(values, templateFile, "build");
  const envVars = readEnvVars(templateFile, values["env-vars"]);
  const source = readOrExplain(templateFile, overrides);
  // What --fix edits, and checks unchanged before it writes.
  const templateText = readFileSync(templateFile, "utf8");

  assertFunctionsOf(source, positionals);
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
      throw new Error(`sam build of the app in ${app} failed, so there is nothing to examine: ${errorMessage(error)}`, { cause: error });
    }
    for (const [name, why] of leftOut) {
      const fn = examined.find((candidate) => candidate.logicalId === name);
      if (fn) skipped.push({ name, runtime: runtimeLabel(fn), why });
    }
    examined = examined.filter((fn) => !leftOut.has(fn.logicalId));
    if (examined.length === 0) throw new Error(`${shown} has no function the doctor can build: ${skipped.map((fn) => `${fn.name}: ${fn.why}`).join("; ")}`);
  }

  const built = readOrExplain(builtTemplateOf(templateFile), overrides);
  // Where each function runs: the template with its deploy parameters, as the lab runs it (a build for another runtime is a finding).
  const labOverrides = parameterOverridesFrom(values, templateFile);
  const deployed = readOrExplain(templateFile, labOverrides);
  const report: DoctorReport = { template: templateFile, functions: [], skipped, measuring: null };
  const examinedBuilds: ExaminedSource[] = [];
  for (const [index, fn] of examined.entries()) {
    say(`examining ${fn.logicalId} (${index + 1}/${examined.length})`);
    const builtFn = built.functions.find((candidate) => candidate.logicalId === fn.logicalId);
    try {
      if (!builtFn) throw new ArtifactError("it is not in the built template: was it built?");
      // Its runtime is the one it is deployed on, not the stand-in it may have been built on (doctor/app-build.mts).
      const runtime = deployed.functions.find((candidate) => candidate.logicalId === fn.logicalId)?.runtime ?? fn.runtime;
      const builtFunction = await readBuiltFunction({ ...builtFn, runtime }, fn);
      const examination = examine(builtFunction);
      examination.profiles = profilesNotMeasured(STATIC_ONLY, profiles);
      report.functions.push(examination);
      examinedBuilds.push({ built: builtFunction, report: examination, source: fn });
    } catch (error) {
      if (!(error instanceof ArtifactError)) throw error;
      report.skipped.push({ name: fn.logicalId, runtime: runtimeLabel(fn), why: error.message });
    }
  }
  const labFailed =
    !values.static &&
    examinedBuilds.length > 0 &&
    !(await inTheLab(templateFile, { build: overrides, lab: labOverrides, envVars }, examinedBuilds, rounds, report));

  console.log(renderText(report));
  if (values.json !== undefined) writeFileSync(resolve(values.json), renderJson(report));
  if (values.markdown !== undefined) writeFileSync(resolve(values.markdown), renderMarkdown(report));
  let fixFailed = false;
  if (values.fix) {
    const fixed = fixedTemplate(templateFile, templateText, examinedBuilds);
    console.log(fixSection(shown, fixed, Boolean(values["dry-run"])));
    try {
      if (!values["dry-run"] && fixed.applied.length > 0) writeRewrites([fixed.template, ...fixed.makefiles], "--fix");
    } catch (error) {
      console.error(`error: ${errorMessage(error)}`);
      fixFailed = true;
    }
  }
  return labFailed || fixFailed || (threshold && failsAt(report, threshold)) ? 1 : 0;
}

export const command = defineCommand(
  {
    name: "doctor",
    summary:
      "Examines a SAM app's Node.js functions for cold-start pitfalls, measures in the lab what fixing each would buy, and with --fix writes the measured fixes into the template.",
    options: OPTIONS,
    positionals: { usage: "[Function ...]", help: "the functions to examine (default: every Node.js function of the template)" },
    rules: [
      { given: "static", excludes: ["rounds"], message: "--static measures nothing: leave out --rounds" },
      { given: "dry-run", needs: "fix", message: "--dry-run goes with --fix: it prints the diff --fix would write" },
      { given: "static", excludes: ["profiles"], message: "--static builds and measures nothing: leave out --profiles" },
      { given: "fix", excludes: ["static"], message: "--fix writes the fixes the doctor built and measured: leave out --static" },
    ],
  },
  main,
);
