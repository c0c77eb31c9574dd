// What moving one function onto the package's pipeline takes (`warpstart adopt`, and --fix when it
// writes a profile): a function SAM builds with its esbuild or npm builder becomes `BuildMethod:
// makefile` with a profile, its source and module format kept as its builder read them, and a
// Makefile that includes the package's rule goes where SAM looks for it (its CodeUri folder); or
// the one line that says why it is not moved, and the lines that say what its owner must still do.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import ts from "typescript";
import { notInstalled, packageRootOf } from "../builder/dependencies.mts";
import { handlerParts, handlerSource, pipelineSource, sourceFormat } from "../builder/handler.mts";
import { profileForNode, profileNamed } from "../builder/profiles.mts";
import { installedVersion, publishedTree, WARPSTART_TREE, warpstartTreeVersion } from "../builder/sdk-tree.mts";
import { errorMessage } from "../core/errors.mts";
import { foldersUp } from "../core/paths.mts";
import { type ManagedRuntime, managedRuntimeOf, RUNTIMES, type Runtime } from "../core/runtimes.mts";
import { applicationOf, ownLogicalId, type TemplateFunction, type TemplateResourceEntry } from "../core/template.mts";
import { deprecationOf, LIFECYCLE_SOURCE, whyNotExamined } from "../doctor/lambda-runtimes.mts";
import type { TemplateChange } from "./template-edit.mts";
import type { Rewrite } from "./write.mts";

/** The runtimes the pipeline builds for and the lab runs: each managed runtime's Node makes its Warp code cache. */
export const PIPELINE_RUNTIMES = (Object.values(RUNTIMES) as Runtime[]).flatMap((runtime) => (runtime.kind === "managed" ? [runtime.lambdaRuntime] : []));

/** --runtime's value that keeps each function on its own runtime where the pipeline builds for it. */
export const KEEP_RUNTIME = "keep";

/** Where adopt moves a function whose runtime the pipeline does not build for (nodejs16.x and older), unless --runtime names another. */
export const MOVED_TO = RUNTIMES.node22.lambdaRuntime;

/** The Makefile that includes the package's rule, beside the template or in a CodeUri folder. */
const RULE_FILE = "warpstart.mk";

/** One function adopted: its template change, the Makefile it is built by, and what to know. */
interface Adoption {
  change: TemplateChange;
  makefile: string;
  notes: string[];
}

export type Plan = { logicalId: string; adoption: Adoption } | { logicalId: string; why: string };

/** The builder a function had: SAM's esbuild builder, its npm builder (no BuildMethod, or a Node runtime's name), else null. */
function samBuilderOf(fn: TemplateFunction): "esbuild" | "npm" | null {
  if (fn.buildMethod === "esbuild") return "esbuild";
  if (fn.buildMethod === null || fn.buildMethod.startsWith("nodejs")) return "npm";
  return null;
}

/** What adoption reads of a function's package.json (nothing where it has none). */
type Manifest = { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };

/** The @aws-sdk packages the handler's own file imports that its package.json does not list: the runtime gave them. */
function sdkFromRuntime(imported: Set<string>, manifest: Manifest): string[] {
  return [...imported].filter((pkg) => pkg.startsWith("@aws-sdk/") && !listedIn(manifest, pkg)).sort();
}

/** The packages a source file imports or requires by name (`@aws-sdk/client-s3`, `aws-sdk` for `aws-sdk/clients/s3`). */
function importedPackages(source: string): Set<string> {
  const code = readFileSync(source, "utf8");
  return new Set([...code.matchAll(/(?:from\s*|import\s*\(\s*|require\s*\(\s*)["']((?:@[\w.-]+\/)?[\w.-]+)/g)].map((match) => match[1]!));
}

/** Whether the package.json lists a package among its dependencies or devDependencies. */
const listedIn = (manifest: Manifest, pkg: string) => pkg in { ...manifest.dependencies, ...manifest.devDependencies };

/** Whether a runtime carries the SDK v2 (aws-sdk): Lambda's Node.js runtimes before nodejs18.x. */
const carriesSdkV2 = (runtime: string | undefined) => Number(/^nodejs(\d+)/.exec(runtime ?? "")?.[1] ?? 99) < 18;

/** The package's rule as the app installed it: node_modules/warpstart/warpstart.mk in the app's folder or above. */
export function installedRule(appDir: string): string {
  const rule = foldersUp(appDir)
    .map((dir) => join(dir, "node_modules/warpstart", RULE_FILE))
    .find((path) => existsSync(path));
  if (rule) return rule;
  throw new Error(
    `warpstart is not installed in ${appDir}: the Makefiles adopt writes include its rule (node_modules/warpstart/${RULE_FILE}). Run npm install --save-dev warpstart (or the packed tarball: npm install --save-dev ./warpstart-<version>.tgz) there first`,
  );
}

/**
 * The Makefile of a folder that builds its functions with the package's rule, from the app's
 * template; `application`: the nested application (Orders/) that declares them. The one form of
 * it: adopt and --fix write it, and the demo's and the starter's are it (test/unit/template.test.mts).
 */
export function makefileText(dir: string, templateFile: string, rule: string, application = ""): string {
  const from = (path: string) => relative(dir, path) || ".";
  const nested = application
    ? `\n# Its functions are the nested application ${application.slice(0, -1)}'s: the app's template names them ${application}<LogicalId>.\nWARPSTART_APPLICATION := ${application}`
    : "";
  return `# SAM's makefile builder (BuildMethod: makefile) runs \`make build-<LogicalId>\` here for the functions whose
# CodeUri is this folder: the warpstart package's rule builds them.
HERE := $(dir $(lastword $(MAKEFILE_LIST)))
WARPSTART_TEMPLATE ?= $(abspath $(HERE)${from(templateFile)})${nested}
WARPSTART_MK := $(HERE)${from(rule)}
ifeq ($(wildcard $(WARPSTART_MK)),)
$(error warpstart is not installed ($(WARPSTART_MK) is missing): run npm install)
endif
include $(WARPSTART_MK)
`;
}

/** The Makefile of an adopted function's folder, to write, or null where the folder has one already (adopt never overwrites it). */
export function makefileRewrite({ logicalId, adoption }: { logicalId: string; adoption: Adoption }, templateFile: string, rule: string): Rewrite | null {
  const file = adoption.makefile;
  return existsSync(file) ? null : { file, was: "", is: makefileText(dirname(file), templateFile, rule, applicationOf(logicalId)) };
}

/** Whether a Makefile is one that includes the package's rule. */
export const includesRule = (makefile: string) => readFileSync(makefile, "utf8").includes(RULE_FILE);

/** The parameters a module's export `name` declares, if the module exports it as a function it writes out (null: it does not, or not so). */
function declaredParameters(file: string, name: string): number | null {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
  const functionOf = (node: ts.Node | undefined): number | null =>
    node && (ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isFunctionDeclaration(node)) ? node.parameters.length : null;
  const exported = (node: ts.Node) => ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);
  for (const statement of source.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name?.text === name && exported(statement)) return functionOf(statement);
    if (ts.isVariableStatement(statement) && exported(statement))
      for (const declaration of statement.declarationList.declarations)
        if (ts.isIdentifier(declaration.name) && declaration.name.text === name) return functionOf(declaration.initializer);
    // exports.handler = ..., module.exports.handler = ...
    if (
      ts.isExpressionStatement(statement) &&
      ts.isBinaryExpression(statement.expression) &&
      statement.expression.operatorToken.kind === ts.SyntaxKind.EqualsToken
    ) {
      const target = statement.expression.left.getText(source);
      if (target === `exports.${name}` || target === `module.exports.${name}`) return functionOf(statement.expression.right);
    }
  }
  return null;
}

/**
 * The runtime an adopted function gets (--runtime: KEEP_RUNTIME or a runtime the pipeline builds
 * for), and the lines that say what a move means: its runtime's dates, what the move could break.
 */
function runtimeFor(fn: TemplateFunction, choice: string, source: string): { runtime: ManagedRuntime; notes: string[] } {
  const own = fn.runtime ?? "";
  const kept = choice === KEEP_RUNTIME && PIPELINE_RUNTIMES.includes(own as ManagedRuntime["lambdaRuntime"]);
  const target = kept ? own : choice === KEEP_RUNTIME ? MOVED_TO : choice;
  const runtime = managedRuntimeOf(target)!;
  const today = new Date().toISOString().slice(0, 10);
  const dates = deprecationOf(own, today);
  const parameters = declaredParameters(source, handlerParts(fn.handler).exportPath.split(".")[0]!);
  const refusesCallback = !runtime.callbackHandlers && parameters !== null && parameters >= 3;
  const callback = `its handler declares ${parameters} parameters (a callback), which ${target} refuses (Runtime.CallbackHandlerDeprecated: its INIT fails)`;
  if (target === own)
    return {
      runtime,
      notes: [
        ...(dates
          ? [
              `${dates} (${LIFECYCLE_SOURCE}): it stays there; --runtime ${RUNTIMES.node22.lambdaRuntime} or ${RUNTIMES.node24.lambdaRuntime} moves it (npx warpstart bench --functions ${fn.logicalId} --runtimes ${runtime.name},${RUNTIMES.node22.name},${RUNTIMES.node24.name} measures what that buys)`,
            ]
          : []),
        // Lambda refuses it as the lab does: said here, before a deploy finds it.
        ...(refusesCallback ? [`${callback}, on Lambda as in the lab: make it an async handler of (event, context)`] : []),
      ],
    };
  const why = choice === KEEP_RUNTIME ? `: the pipeline builds for ${PIPELINE_RUNTIMES.join(", ")}` : " (--runtime)";
  const notes = [`Runtime ${own} → ${target}${why}${dates ? `; ${dates} (${LIFECYCLE_SOURCE})` : ""}`];
  if (refusesCallback) notes.push(`${callback}: make it an async handler of (event, context) first, or choose --runtime ${RUNTIMES.node22.lambdaRuntime}`);
  else notes.push(`the doctor's checks find nothing the move breaks; npx warpstart invoke ${fn.logicalId} runs it on ${target} in the lab`);
  return { runtime, notes };
}

const isImage = (entry: TemplateResourceEntry | undefined) => entry?.Properties?.PackageType === "Image";

/** Whether SAM's npm builder builds the function as the template has it: a Node zip function whose code is a folder, of no BuildMethod or a Node runtime's. */
export const builtBySamNpm = (fn: TemplateFunction, entry: TemplateResourceEntry | undefined) =>
  !isImage(entry) && !fn.whyNotOnDisk && Boolean(fn.runtime?.startsWith("nodejs")) && samBuilderOf(fn) === "npm";

/** What adopting one function takes, or why it is not adopted; `runtimeChoice` is --runtime's value. */
export function planOf(fn: TemplateFunction, before: TemplateResourceEntry, profile: string, appDir: string, runtimeChoice = KEEP_RUNTIME): Plan {
  const { logicalId } = fn;
  const skip = (why: string): Plan => ({ logicalId, why });
  if (isImage(before)) return skip("it is a container image (PackageType: Image): adopt takes zip functions");
  const notExamined = whyNotExamined(fn);
  if (notExamined) return skip(notExamined.replaceAll("the doctor examines", "adopt takes"));
  if (fn.whyNotOnDisk) return skip(fn.whyNotOnDisk);
  if (before.Type !== "AWS::Serverless::Function") return skip(`it is an ${before.Type}: adopt moves SAM's functions (AWS::Serverless::Function)`);
  if (!existsSync(fn.codeDir)) return skip(`its CodeUri ${relative(appDir, fn.codeDir) || "."} is not a folder of the app: adopt builds code on disk`);
  const makefile = join(fn.codeDir, "Makefile");
  if (fn.buildMethod === "makefile") {
    return skip(
      existsSync(makefile) && includesRule(makefile)
        ? "it is built by warpstart already"
        : `it is built by a Makefile of the app's own (${relative(appDir, makefile)}), which adopt never overwrites`,
    );
  }
  const builder = samBuilderOf(fn);
  if (builder === null) return skip(`SAM builds it with its ${fn.buildMethod} builder, which the pipeline does not replace`);
  if (existsSync(makefile) && !includesRule(makefile))
    return skip(`its CodeUri folder holds a Makefile of the app's own (${relative(appDir, makefile)}), which adopt never overwrites`);
  const source = pipelineSource(fn, false);
  if ("why" in source) return skip(source.why);
  let file: string;
  try {
    file = handlerSource({ ...fn, ...source, buildProperties: {} }).source;
  } catch (error) {
    return skip(errorMessage(error).replace(`${logicalId}: `, ""));
  }
  const packageRoot = packageRootOf(fn.codeDir, appDir);
  const manifestFile = packageRoot && join(packageRoot, "package.json");
  const manifest = manifestFile ? (JSON.parse(readFileSync(manifestFile, "utf8")) as Manifest) : {};
  const format = sourceFormat(fn, file);
  const moved = runtimeFor(fn, runtimeChoice, file);
  const imported = importedPackages(file);
  // Off a runtime that carried the SDK v2, code that requires it without installing it fails INIT: never adopted so.
  if (moved.runtime.lambdaRuntime !== fn.runtime && carriesSdkV2(fn.runtime) && imported.has("aws-sdk") && !listedIn(manifest, "aws-sdk"))
    return skip(
      `it requires aws-sdk (the SDK v2), which ${fn.runtime} carries and no runtime the pipeline builds for does, so the move would fail its INIT: npm install aws-sdk in its package (or move to the v3 clients, @aws-sdk/client-*), then adopt it`,
    );
  // What the build will say of the profile on this runtime (Warp without its cache on Node 18), said before it is written.
  const forNode = profileForNode(profileNamed(profile), moved.runtime.nodeMajor).note;
  const notes: string[] = [...moved.notes, ...(forNode ? [forNode] : [])];
  if (source.handler !== fn.handler) notes.push(`Handler ${fn.handler} → ${source.handler} (the pipeline names the source; SAM esbuild named its output)`);
  const dropped = Object.keys(fn.buildProperties).filter((key) => key !== "Format" && key !== "EntryPoints");
  if (dropped.length > 0)
    notes.push(
      `SAM esbuild's ${dropped.join(", ")} left behind: the pipeline minifies, targets the function's Node, gives ES bundles a require and bundles the SDK itself`,
    );
  // Where the build takes each: the SDK tree the source resolves (the app's, else warpstart's), else the runtime's copy (builder/sdk.mts).
  const tree = publishedTree(file);
  for (const pkg of sdkFromRuntime(imported, manifest)) {
    const version = tree === WARPSTART_TREE ? warpstartTreeVersion(pkg) : installedVersion(tree, pkg);
    const copy =
      version === null
        ? `the ${moved.runtime.lambdaRuntime} runtime's copy at its release`
        : tree === WARPSTART_TREE
          ? `warpstart's own copy (${version})`
          : `the copy installed in ${relative(appDir, join(tree, "node_modules")) || "node_modules"} (${version})`;
    notes.push(
      `it imports ${pkg}, which ${manifestFile ? relative(appDir, manifestFile) : "no package.json"} does not list (the runtime gave it): the build bundles ${copy}; npm install ${pkg} to choose the version`,
    );
  }
  if (packageRoot && notInstalled(packageRoot))
    notes.push(
      `${relative(appDir, packageRoot) || "."}/node_modules is not installed: sam build installs it there (npm install --omit=dev), as SAM's ${builder} builder did in its build folder`,
    );
  const after = structuredClone(before);
  const { BuildMethod: _method, BuildProperties: _properties, ...metadata } = (before.Metadata ?? {}) as Record<string, unknown>;
  after.Metadata = { ...metadata, BuildMethod: "makefile", BuildProperties: { Profile: profile, Format: format } };
  if (source.handler !== fn.handler) after.Properties = { ...after.Properties, Handler: source.handler };
  if (moved.runtime.lambdaRuntime !== fn.runtime) after.Properties = { ...after.Properties, Runtime: moved.runtime.lambdaRuntime };
  return { logicalId, adoption: { change: { logicalId: ownLogicalId(fn), before, after }, makefile, notes } };
}
