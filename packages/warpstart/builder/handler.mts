// A function's handler as the template names it, and the source the pipeline builds it from:
// the runtime's reading of Handler, the source files it may name, SAM's builders' conventions,
// and the module format the runtime loads a handler file in.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import type TypeScript from "typescript";
import { foldersUp } from "../core/paths.mts";
import { managedRuntimeOf } from "../core/runtimes.mts";
import type { TemplateFunction } from "../core/template.mts";
import { BuildError } from "./errors.mts";

const SOURCE_EXTENSIONS = [".mts", ".ts", ".mjs", ".js", ".cts", ".cjs"];

/** A function's handler, read as the runtime reads it: [dir/]module.export, split at the first dot of the file name. */
export function handlerParts(handler: string): { module: string; exportPath: string } {
  const slash = handler.lastIndexOf("/");
  const dot = handler.indexOf(".", slash + 1);
  if (dot <= slash + 1 || dot === handler.length - 1 || handler.includes("..")) {
    throw new BuildError(`Handler "${handler}" is not of the form path/to/module.export (e.g. src/functions/hello/index.handler)`);
  }
  return { module: handler.slice(0, dot), exportPath: handler.slice(dot + 1) };
}

/** What a build makes of a function: its source, module format, and the file the runtime loads. */
export interface HandlerSource {
  source: string;
  format: "esm" | "cjs";
  /** The built handler module, relative to the artifact (the task root). */
  outputFile: string;
}

/**
 * The handler's source and the module format the build writes: BuildProperties.Format (esm or
 * cjs, as SAM's esbuild builder names it), else the format of the tool a peer profile stands for,
 * else the source's own (.cts/.cjs are CommonJS, anything else an ES module: the project is
 * "type": "module").
 */
export function handlerSource(
  fn: Pick<TemplateFunction, "logicalId" | "codeDir" | "handler" | "buildProperties">,
  toolFormat?: HandlerSource["format"],
): HandlerSource {
  const { module } = handlerParts(fn.handler);
  const source = SOURCE_EXTENSIONS.map((extension) => join(fn.codeDir, `${module}${extension}`)).find((file) => existsSync(file));
  if (!source) {
    throw new BuildError(
      `${fn.logicalId}: its Handler ${fn.handler} names the source ${module}.{${SOURCE_EXTENSIONS.map((e) => e.slice(1)).join(",")}} in ${fn.codeDir} (CodeUri), and there is none: write the handler there or fix Handler.`,
    );
  }
  const declared = fn.buildProperties.Format;
  if (declared !== undefined && declared !== "esm" && declared !== "cjs")
    throw new BuildError(`${fn.logicalId}: BuildProperties.Format must be esm or cjs, not ${JSON.stringify(declared)}`);
  const format = declared ?? toolFormat ?? (/\.c[jt]s$/.test(source) ? "cjs" : "esm");
  return { source, format, outputFile: outputFileOf(module, format) };
}

/** The built handler module the runtime loads for a module path (without extension) in a format. */
export const outputFileOf = (module: string, format: HandlerSource["format"]) => `${module}${format === "cjs" ? ".cjs" : ".mjs"}`;

/** Where the pipeline reads a function's handler: its CodeUri and a Handler naming the source (handlerSource's convention). */
export interface PipelineSource {
  codeDir: string;
  handler: string;
}

/**
 * The source the pipeline builds a function from, as the template's own build reads it, or why
 * there is none: SAM's esbuild builder bundles EntryPoints (relative to CodeUri; the Handler's
 * module when it has none) and names the output after it, its npm builder ships CodeUri with the
 * Handler's module in it, this project's Makefile builds the Handler's source; another
 * Makefile's source is its own business.
 */
export function pipelineSource(fn: TemplateFunction, pipeline: boolean): PipelineSource | { why: string } {
  const { exportPath } = handlerParts(fn.handler);
  if (fn.buildMethod === "makefile" && !pipeline) return { why: "it is built by its own Makefile, which does not say which source it builds" };
  if (fn.buildMethod === "esbuild") {
    const entryPoints = fn.buildProperties.EntryPoints;
    const [entry] = Array.isArray(entryPoints) ? entryPoints.map(String) : typeof entryPoints === "string" ? [entryPoints] : [];
    // Without EntryPoints, SAM bundles the Handler's module.
    if (entry === undefined) return { codeDir: fn.codeDir, handler: fn.handler };
    const module = relative(fn.codeDir, resolve(fn.codeDir, entry)).replace(/\.[cm]?[jt]sx?$/, "");
    return { codeDir: fn.codeDir, handler: `${module}.${exportPath}` };
  }
  if (fn.buildMethod !== null && fn.buildMethod !== "makefile") return { why: `the pipeline does not build what SAM's ${fn.buildMethod} builder builds` };
  return { codeDir: fn.codeDir, handler: fn.handler };
}

/** Whether the template has the pipeline build a function (SAM's makefile builder): else SAM's own builder builds it, and the bench and the doctor measure it as built. */
export const builtByPipeline = (fn: Pick<TemplateFunction, "buildMethod">) => fn.buildMethod === "makefile";

/** The handler module in a built artifact (its handler's module path, .mjs or .cjs), relative to the artifact. */
export function builtHandlerFile(fn: Pick<TemplateFunction, "logicalId" | "codeDir" | "handler">): string {
  const { module } = handlerParts(fn.handler);
  const built = [".mjs", ".cjs"].map((extension) => `${module}${extension}`).find((file) => existsSync(join(fn.codeDir, file)));
  if (!built) throw new BuildError(`${fn.logicalId}: ${fn.codeDir} holds no built ${module}.mjs or .cjs: build it first (sam build)`);
  return built;
}

/**
 * Whether a function's runtime loads a `.js` of module syntax outside a "type": "module" package as
 * an ES module: Node 20.19+ and 22.7+ detect the syntax unless told not to; nodejs22.x's bootstrap
 * tells it (core/runtimes.mts) unless NODE_OPTIONS turns detection back on, as AWS documents (it
 * turns detection off on Node 22 only); nodejs18.x and older require() a `.js`, which no flag of
 * theirs lets load module syntax.
 */
function detectsModuleSyntax(fn: TemplateFunction): boolean {
  const runtime = managedRuntimeOf(fn.runtime);
  if (!runtime || runtime.nodeMajor < 20) return false;
  const turnedOff = runtime.nodeFlags(fn.memoryMb).includes("--no-experimental-detect-module");
  return !turnedOff || /(^|\s)--experimental-detect-module\b/.test(String(fn.environment.NODE_OPTIONS ?? ""));
}

/**
 * TypeScript's parser, loaded on first use: only a `.js` handler outside any "type" asks for it,
 * and loading it cost each `warpstart build` (SAM runs one per function) 0.4 s (docs/build-time.md).
 */
const typescript = (): typeof TypeScript => createRequire(import.meta.url)("typescript") as typeof TypeScript;

/** Whether a script has ES module syntax (import, export, import.meta), as Node's detection reads it. */
const hasModuleSyntax = (file: string, ts = typescript()) =>
  ts.isExternalModule(ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false, ts.ScriptKind.JS));

/** The "type" of the package.json nearest a file of the artifact (undefined: none says one). */
function packageTypeOf(artifactDir: string, file: string): string | undefined {
  const manifest = foldersUp(dirname(join(artifactDir, file)), artifactDir)
    .map((dir) => join(dir, "package.json"))
    .find((path) => existsSync(path));
  return manifest ? (JSON.parse(readFileSync(manifest, "utf8")) as { type?: string }).type : undefined;
}

/**
 * How the function's runtime loads its handler: .mjs/.cjs say it; a .js follows the nearest
 * package.json's "type", and without one is an ES module only where the runtime detects its syntax.
 */
export function moduleFormat(artifactDir: string, file: string, fn: TemplateFunction): "esm" | "cjs" {
  if (file.endsWith(".mjs")) return "esm";
  if (file.endsWith(".cjs")) return "cjs";
  const type = packageTypeOf(artifactDir, file);
  if (type === "module") return "esm";
  if (type === "commonjs") return "cjs";
  return detectsModuleSyntax(fn) && hasModuleSyntax(join(artifactDir, file)) ? "esm" : "cjs";
}

/**
 * The module format the pipeline builds a SAM-built function's source in, as adopt writes it:
 * SAM esbuild's Format (cjs by default, as SAM has it), else the source as the runtime reads it
 * (CommonJS keeps what strict ES modules refuse: a sloppy-mode global, __filename).
 */
export function sourceFormat(fn: TemplateFunction, sourceFile: string): "esm" | "cjs" {
  if (fn.buildMethod === "esbuild") return fn.buildProperties.Format === "esm" ? "esm" : "cjs";
  return moduleFormat(fn.codeDir, relative(fn.codeDir, sourceFile), fn);
}
