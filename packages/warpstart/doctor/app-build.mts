// How the doctor builds an app: `sam build` of the app's own template, as its owner builds it. A
// function on a Node.js runtime the lab does not run (doctor/lambda-runtimes.mts) is built on the
// stand-in runtime instead, from a copy of the template written elsewhere: SAM CLI refuses to
// build the oldest runtimes at all, and the lab runs only what it was built for.
import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, relative } from "node:path";
import { appDirOf, buildDirOf, foldersUp, seedDirOf } from "../core/paths.mts";
import { removeTree } from "../core/processes.mts";
import {
  absolutePaths,
  COPY_OF,
  foldNested,
  readTemplate,
  type Template,
  type TemplateFunction,
  type TemplateResourceEntry,
  templateAsWritten,
} from "../core/template.mts";
import { samBuild, samBuildEach } from "../lab/sam.mts";
import { STAND_IN_RUNTIME, whyStandIn } from "./lambda-runtimes.mts";

/**
 * The app's template as a copy elsewhere reads it: every path absolute, and a function that names
 * no CodeUri (SAM's default is the template's folder) given the app's folder. `folded`: with its
 * local nested applications folded in (core/template.mts foldNested), for a copy the pipeline
 * builds in this process; sam build takes only logical ids of letters and digits.
 */
export function relocatedTemplate(templateFile: string, { folded = false } = {}): Template {
  const written = templateAsWritten(templateFile);
  const template = folded ? foldNested(written, templateFile) : written;
  const appDir = appDirOf(templateFile);
  const globals = template.Globals?.Function;
  absolutePaths(globals, appDir);
  for (const resource of Object.values(template.Resources)) {
    absolutePaths(resource.Properties, appDir);
    const inline = resource.Properties?.InlineCode !== undefined;
    if (resource.Type === "AWS::Serverless::Function" && !inline && resource.Properties?.CodeUri === undefined && globals?.CodeUri === undefined) {
      resource.Properties = { ...resource.Properties, CodeUri: appDir };
    }
  }
  return template;
}

const FUNCTION_TYPES = ["AWS::Serverless::Function", "AWS::Lambda::Function"];

/** A function's copy to build: the function it copies, its logical id, and how it differs. */
export interface FunctionCopy {
  of: string;
  copyId: string;
  change(resource: TemplateResourceEntry): void;
}

/**
 * A template of the app's (relocated, or of copies) written into a scratch folder, with the app's
 * seed folder beside it: what its builds' INIT finds in the local AWS and its Fn::ImportValue values.
 */
export function writeScratchTemplate(templateFile: string, scratch: string, template: unknown): string {
  const file = join(scratch, "template.json");
  writeFileSync(file, `${JSON.stringify(template, null, 2)}\n`);
  const seeds = seedDirOf(templateFile);
  if (existsSync(seeds) && !existsSync(seedDirOf(file))) symlinkSync(seeds, seedDirOf(file));
  return file;
}

/**
 * `template` (a relocated one) with its functions replaced by copies: no events (the copies are
 * invoked, never routed), alias or provisioned environments, nor outputs (they name the functions
 * left out); the app's other resources as they are.
 */
export function templateOfCopies(template: Template, copies: FunctionCopy[]): Record<string, unknown> {
  const resources: Record<string, TemplateResourceEntry> = {};
  for (const [id, resource] of Object.entries(template.Resources)) if (!FUNCTION_TYPES.includes(resource.Type)) resources[id] = resource;
  for (const { of, copyId, change } of copies) {
    const copy = structuredClone(template.Resources[of]!);
    for (const key of ["Events", "AutoPublishAlias", "ProvisionedConcurrencyConfig"]) delete copy.Properties?.[key];
    change(copy);
    copy.Metadata = { ...copy.Metadata, [COPY_OF]: of };
    resources[copyId] = copy;
  }
  const { Outputs: _outputs, ...rest } = template;
  return { ...rest, Resources: resources };
}

/** The logical ids of the functions the lab runs on the stand-in runtime. */
export const standInIds = (functions: Pick<TemplateFunction, "logicalId" | "runtime">[]) =>
  new Set(functions.filter((fn) => whyStandIn(fn.runtime)).map((fn) => fn.logicalId));

/** A function's resource moved to the stand-in runtime (its own Runtime overrides the Globals'). */
export function onStandInRuntime(resource: TemplateResourceEntry): void {
  resource.Properties = { ...resource.Properties, Runtime: STAND_IN_RUNTIME };
}

/** Whether a function's package.json installs esbuild for SAM's builder (it installs dependencies only). */
function installsEsbuild(codeDir: string): boolean {
  try {
    const manifest = JSON.parse(readFileSync(join(codeDir, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
    return manifest.dependencies?.esbuild !== undefined;
  } catch {
    return false;
  }
}

/** The folder of the package's pinned esbuild binary, wherever npm put the package. */
const PACKAGE_ESBUILD_BIN = join(dirname(createRequire(import.meta.url).resolve("esbuild/package.json")), "bin");

/**
 * The environment of every sam build the doctor runs. SAM's esbuild builder runs the esbuild its
 * npm install brought, else the first on PATH (many public apps tell their users to install it
 * globally): this project's pinned one is first on PATH.
 */
const withPackageEsbuild = () => ({ PATH: [PACKAGE_ESBUILD_BIN, process.env.PATH ?? ""].join(delimiter) });

/** The line that says the build runs this project's esbuild, when an esbuild function brings none of its own (null: each does). */
function packageEsbuildUsed(functions: TemplateFunction[]): string | null {
  const without = functions.filter((fn) => fn.buildMethod === "esbuild" && !installsEsbuild(fn.codeDir)).map((fn) => fn.logicalId);
  if (without.length === 0) return null;
  const own = without.length === 1 ? "installs no esbuild of its own" : "install no esbuild of their own";
  return `${without.join(", ")} ${own}: SAM's esbuild builder runs warpstart's (${PACKAGE_ESBUILD_BIN}/esbuild)`;
}

/** The settings of every sam build of a copy of the app's template written elsewhere (`copyFile`): the project's Makefile reads the copy (WARPSTART_TEMPLATE). */
const copyBuild = (copyFile: string, appDir: string, buildDir: string, parameterOverrides: Record<string, string>, resources?: string[]) => ({
  template: copyFile,
  resources,
  appDir,
  buildDir,
  parameterOverrides,
  quiet: true,
  env: { ...withPackageEsbuild(), WARPSTART_TEMPLATE: copyFile },
});

/** `sam build` of a copy of the app's template written elsewhere (`copyFile`), with the app's settings and builders, into `buildDir`. */
export const samBuildCopy = (copyFile: string, appDir: string, buildDir: string, parameterOverrides: Record<string, string>, resources?: string[]) =>
  samBuild(copyBuild(copyFile, appDir, buildDir, parameterOverrides, resources));

/** Why the doctor cannot build a function from its code on disk (null: it can). */
function whyNotBuildable(fn: TemplateFunction, appDir: string): string | null {
  if (existsSync(fn.codeDir)) return null;
  return `its CodeUri ${relative(appDir, fn.codeDir) || "."} does not exist in ${appDir}: the doctor builds code on disk (an S3 CodeUri or a missing folder cannot be built)`;
}

/**
 * `sam build` of the app (only `resources`, if given) into its own .aws-sam/build; what the build
 * did otherwise than the owner's would goes to `say`. A function whose code is not on disk, or
 * whose build fails, is left out of the build, so the others are built: the answer says why, for
 * each. A build in which every function fails rejects with SAM's error.
 */
export async function buildApp(
  templateFile: string,
  overrides: Record<string, string>,
  resources: string[] | undefined,
  say: (line: string) => void,
): Promise<{ leftOut: Map<string, string> }> {
  const appDir = appDirOf(templateFile);
  const installed = installedPackage(appDir);
  try {
    return await buildAppIn(appDir, templateFile, overrides, resources, say);
  } finally {
    if (installed && !existsSync(installed))
      say(
        `sam build removed warpstart from ${relative(process.cwd(), dirname(installed)) || dirname(installed)}: SAM's esbuild builder, building in source, runs npm install --omit=dev there, which drops devDependencies; run npm install before the next npx warpstart (a function adopt moves onto the pipeline no longer runs it)`,
      );
  }
}

/** Where the app installed the package (node_modules/warpstart in its folder or above), or null. */
const installedPackage = (appDir: string) =>
  foldersUp(appDir)
    .map((dir) => join(dir, "node_modules/warpstart"))
    .find((path) => existsSync(path)) ?? null;

async function buildAppIn(
  appDir: string,
  templateFile: string,
  overrides: Record<string, string>,
  resources: string[] | undefined,
  say: (line: string) => void,
): Promise<{ leftOut: Map<string, string> }> {
  const all = readTemplate(templateFile, overrides).functions;
  const leftOut = new Map(
    all.flatMap((fn) => {
      const why = whyNotBuildable(fn, appDir);
      return why ? [[fn.logicalId, why] as const] : [];
    }),
  );
  const functions = all.filter((fn) => (!resources || resources.includes(fn.logicalId)) && !leftOut.has(fn.logicalId));
  if (functions.length === 0) return { leftOut };
  const esbuildLine = packageEsbuildUsed(functions);
  if (esbuildLine) say(esbuildLine);
  const standIns = standInIds(functions);
  const failedBuilds = (failed: Map<string, string>) => {
    for (const [id, line] of failed) leftOut.set(id, `its build fails: ${line}`);
    return { leftOut };
  };
  if (standIns.size === 0 && leftOut.size === 0)
    return failedBuilds(await samBuildEach({ template: templateFile, resources, quiet: true, parameterOverrides: overrides, env: withPackageEsbuild() }, say));
  if (standIns.size > 0) say(`building ${[...standIns].join(", ")} on ${STAND_IN_RUNTIME}, the runtime the lab runs in place of theirs`);
  const template = relocatedTemplate(templateFile);
  for (const id of standIns) onStandInRuntime(template.Resources[id]!);
  for (const id of leftOut.keys()) delete template.Resources[id];
  delete template.Outputs;
  const scratch = mkdtempSync(join(tmpdir(), "warpstart-doctor-build-"));
  try {
    const copy = writeScratchTemplate(templateFile, scratch, template);
    return failedBuilds(await samBuildEach(copyBuild(copy, appDir, buildDirOf(templateFile), overrides, resources), say));
  } finally {
    removeTree(scratch);
  }
}
