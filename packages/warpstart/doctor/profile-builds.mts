// What this template would buy a function: its own source and dependencies built by this
// project's pipeline (builder/build.mts) as the Optimized and the Warp profile, beside the app, each
// then measured against the function as it is in the doctor's one interleaved run (doctor/measure.mts).
// A function whose source the pipeline cannot find or build says why, per profile.
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { buildFunction, functionBuild } from "../builder/build.mts";
import { buildFailure } from "../builder/code-cache.mts";
import { notInstalled, npmInstall, packageRootOf } from "../builder/dependencies.mts";
import { BuildError } from "../builder/errors.mts";
import { handlerSource, type PipelineSource, pipelineSource, sourceFormat } from "../builder/handler.mts";
import { builtLayer } from "../builder/layer-packages.mts";
import { profileForNode, profileNamed, withToolEnvironment } from "../builder/profiles.mts";
import { errorMessage } from "../core/errors.mts";
import { appDirOf, buildDirOf } from "../core/paths.mts";
import { removeTree } from "../core/processes.mts";
import { type ManagedRuntime, managedRuntimeOf } from "../core/runtimes.mts";
import { NESTED_SEPARATOR, readTemplate, type TemplateFunction } from "../core/template.mts";
import { ownLocalAws } from "../emulation/local-aws/build-services.mts";
import { installRuntimeSdk, missingRuntimeSdk } from "../emulation/runtime-sdk.mts";
import { relocatedTemplate, templateOfCopies, writeScratchTemplate } from "./app-build.mts";
import type { Examined } from "./checks.mts";
import type { ComparedProfile, ProfileResult } from "./findings.mts";
import { STAND_IN_RUNTIME, whyStandIn } from "./lambda-runtimes.mts";
import type { Comparison } from "./measure.mts";

/** Files of an app's folder a copy leaves behind: its install and its builds. */
const NOT_COPIED = new Set(["node_modules", ".aws-sam", ".git"]);

/** A profile's build of one function: its copy's logical id and the result the measurement fills in. */
interface PlannedProfile {
  function: string;
  profile: ComparedProfile;
  copyId: string;
  result: ProfileResult;
}

/**
 * The source with its dependencies installed: in place when its package has a node_modules (the
 * owner installed it), else in a copy of its package folder in `scratch` where npm installs what
 * Lambda gets (`--omit=dev`, as SAM's builders install); each package once.
 */
async function withDependencies(
  source: PipelineSource,
  appDir: string,
  scratch: string,
  installed: Map<string, Promise<string>>,
  say: (line: string) => void,
): Promise<PipelineSource> {
  const root = packageRootOf(source.codeDir, appDir);
  if (root === null || !notInstalled(root)) return source;
  if (!installed.has(root)) {
    const copy = join(scratch, "packages", String(installed.size));
    installed.set(
      root,
      (async () => {
        cpSync(root, copy, { recursive: true, filter: (from) => !NOT_COPIED.has(relative(root, from).split("/")[0]!) });
        const named = relative(appDir, root) || ".";
        say(`installing the dependencies of ${named} for the profiles' builds (npm install --omit=dev, in a copy)`);
        await npmInstall(copy, named);
        return copy;
      })(),
    );
  }
  const copy = await installed.get(root)!;
  return { ...source, codeDir: join(copy, relative(root, source.codeDir)) };
}

/** A logical id for a function's build in a profile, e.g. HelloWorldFunctionAsWarp. */
const copyIdOf = (fn: string, profile: string) => `${fn.replaceAll(NESTED_SEPARATOR, "")}As${profile}`;

/** Where a function runs in the lab: its own runtime, or the stand-in for one the lab cannot run. */
const labRuntimeOf = (fn: TemplateFunction) => (fn.runtime === undefined || whyStandIn(fn.runtime) ? STAND_IN_RUNTIME : fn.runtime);

/** The profiles' builds, ready for the lab: each copy as built (a function the lab serves beside the app's) and its plan. */
export interface ProfileBuilds {
  planned: PlannedProfile[];
  functions: TemplateFunction[];
  /** Removes the scratch folder they were built in. */
  cleanup(): void;
}

/**
 * Builds each examined function's source in each profile, in a scratch folder: the app's template with
 * the functions replaced by their copies (no events: they are invoked, never routed), each copy's
 * Metadata the pipeline's (an ES module, so Warp can load its SDK chunk), built in this process.
 * A copy that cannot be built records why on its result; the others are built.
 */
export async function buildProfiles(
  templateFile: string,
  overrides: Record<string, string>,
  examined: (Examined & { source: TemplateFunction })[],
  say: (line: string) => void,
): Promise<ProfileBuilds> {
  const scratch = mkdtempSync(join(tmpdir(), "warpstart-doctor-profiles-"));
  const cleanup = () => removeTree(scratch);
  try {
    return { ...(await buildInto(scratch, templateFile, overrides, examined, say)), cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}

async function buildInto(
  scratch: string,
  templateFile: string,
  overrides: Record<string, string>,
  examined: (Examined & { source: TemplateFunction })[],
  say: (line: string) => void,
): Promise<Omit<ProfileBuilds, "cleanup">> {
  const appDir = appDirOf(templateFile);
  const template = relocatedTemplate(templateFile, { folded: true });
  // The copy has no samconfig.toml beside it: the app's parameter values become defaults.
  for (const [name, value] of Object.entries(overrides)) if (template.Parameters?.[name]) template.Parameters[name].Default = value;
  const installed = new Map<string, Promise<string>>();
  const planned: PlannedProfile[] = [];
  const sources = new Map<string, PipelineSource & { format?: "esm" | "cjs" }>();
  for (const { built, report, source } of examined) {
    if (report.profiles.length === 0) continue;
    const found = pipelineSource(source, built.pipeline);
    let why = "why" in found ? found.why : null;
    if (!("why" in found)) {
      try {
        const withDeps = await withDependencies(found, appDir, scratch, installed, say);
        // The builder's own check that the Handler names a source: its message says what it looked for.
        const file = handlerSource({ logicalId: source.logicalId, codeDir: withDeps.codeDir, handler: withDeps.handler, buildProperties: {} }).source;
        // A SAM-built function in the format adopt gives it: what the doctor measures is what adopt writes.
        sources.set(source.logicalId, { ...withDeps, format: built.pipeline ? undefined : sourceFormat({ ...source, codeDir: withDeps.codeDir }, file) });
      } catch (error) {
        if (!(error instanceof BuildError)) throw error;
        why = error.message.replace(`${source.logicalId}: `, "");
      }
    }
    for (const result of report.profiles) {
      const { profile } = result;
      if (why) result.whyNotMeasured = `the pipeline cannot build it: ${why}`;
      else if (built.pipeline && source.buildProperties.Profile === profile) result.whyNotMeasured = `it is built with the ${profile} profile already`;
      else planned.push({ function: source.logicalId, profile, copyId: copyIdOf(source.logicalId, profile), result });
    }
  }
  if (planned.length === 0) return { planned, functions: [] };
  const examinedOf = (plan: PlannedProfile) => examined.find((candidate) => candidate.source.logicalId === plan.function)!;

  const copiesTemplate = templateOfCopies(
    template,
    planned.map((plan) => ({
      of: plan.function,
      copyId: plan.copyId,
      change: (copy) => {
        const { built, source } = examinedOf(plan);
        const { codeDir, handler, format } = sources.get(plan.function)!;
        delete copy.Properties?.InlineCode;
        copy.Properties = { ...copy.Properties, CodeUri: codeDir, Handler: handler, Runtime: labRuntimeOf(source) };
        // A pipeline function keeps its own build properties (its Define constants); SAM esbuild's mean other things here.
        const own = built.pipeline ? source.buildProperties : {};
        // A peer builds in its tool's format, not the one adopt would write.
        const inFormat = format && !profileNamed(plan.profile).format ? { Format: format } : {};
        copy.Metadata = { BuildMethod: "makefile", BuildProperties: { ...own, Profile: plan.profile, ...inFormat } };
      },
    })),
  );
  // What a function takes from its runtime beyond the stand-in's copy, installed first: the copies bundle it at the runtime's release.
  const takes = new Map<ManagedRuntime, Set<string>>();
  for (const plan of planned) {
    const { built, source } = examinedOf(plan);
    const runtime = managedRuntimeOf(labRuntimeOf(source));
    if (!runtime) continue;
    for (const name of missingRuntimeSdk(built.fn.codeDir, runtime)) takes.set(runtime, (takes.get(runtime) ?? new Set()).add(name));
  }
  for (const [runtime, names] of takes) await installRuntimeSdk(runtime, [...names], say);
  const copiesFile = writeScratchTemplate(templateFile, scratch, copiesTemplate);

  // The copies run on the template's layers as the app's sam build built them (a Node.js layer's packages installed), as its functions do.
  const read = readTemplate(copiesFile);
  const appBuild = [buildDirOf(templateFile)];
  const copies = { ...read, functions: read.functions.map((fn) => ({ ...fn, layers: fn.layers.map((layer) => builtLayer(layer, appBuild)) })) };
  const functions: TemplateFunction[] = [];
  const measurable: PlannedProfile[] = [];
  for (const [index, plan] of planned.entries()) {
    say(`building ${plan.function} as ${plan.profile} with this project's pipeline (${index + 1}/${planned.length})`);
    const outdir = join(scratch, "profiles", plan.copyId);
    try {
      const { fellBack } = await buildFunction(functionBuild(copies, plan.copyId), outdir, { initServices: ownLocalAws });
      if (fellBack) {
        plan.result.whyNotMeasured = `the ${plan.profile} build could not make its code cache, so it would measure Optimized: ${fellBack.replaceAll(plan.copyId, plan.function)}`;
        continue;
      }
    } catch (error) {
      // The builder names the copy; the report names the function.
      plan.result.whyNotMeasured = `the ${plan.profile} build failed: ${buildFailure(errorMessage(error)).replace(`${plan.copyId}: `, "").replaceAll(plan.copyId, plan.function)}`;
      continue;
    }
    // What the profile is on the copy's Node (Warp on Node 18 is Optimized), said beside its numbers.
    const { source } = examinedOf(plan);
    const nodeMajor = managedRuntimeOf(labRuntimeOf(source))?.nodeMajor;
    plan.result.note = nodeMajor === undefined ? null : profileForNode(profileNamed(plan.profile), nodeMajor).note;
    const copy = copies.functions.find((fn) => fn.logicalId === plan.copyId)!;
    functions.push(withToolEnvironment({ ...copy, codeDir: outdir }, profileNamed(plan.profile)));
    measurable.push(plan);
  }
  return { planned: measurable, functions };
}

/** What a profile's result says when its cold starts' logs say the code cache was rejected. */
export const REJECTED_CACHE_NOTE = "its code cache was rejected in the lab's cold starts (its log says why): measured compiling its chunk";

/** Each profile's build as a comparison that records what it bought on the function's profile result. */
export const profileComparisons = (builds: Pick<ProfileBuilds, "planned">): Comparison[] =>
  builds.planned.map((plan) => ({
    function: plan.function,
    copyId: plan.copyId,
    label: `${plan.function} as ${plan.profile}`,
    metric: "init",
    record(cost, reported) {
      if (typeof cost === "string") plan.result.whyNotMeasured = cost;
      else Object.assign(plan.result, { measured: cost, whyNotMeasured: null });
      // Said where the result is: a Warp whose cache V8 refused is measured compiling its chunk.
      if (reported?.codeCacheRejected) plan.result.note = REJECTED_CACHE_NOTE;
    },
  }));
