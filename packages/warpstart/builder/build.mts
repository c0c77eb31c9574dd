// One esbuild pipeline for every function of a template: SAM's makefile builder runs
// `make build-<LogicalId>`, whose one pattern rule runs
//   warpstart build --template <template.yaml> <LogicalId> <ARTIFACTS_DIR>
// The template says the rest: the handler's source from CodeUri + Handler
// (src/functions/x/index.handler -> src/functions/x/index.mts, .ts, .mjs, .js, .cts or .cjs), its
// profile from Metadata.BuildProperties.Profile (builder/profiles.mts), the constants to embed
// from BuildProperties.Define. The build writes what the runtime loads at the handler's path
// (src/functions/x/index.mjs, or .cjs for a CommonJS source; Warp adds sdk.cjs and sdk.<arch>.cache
// beside it) and, beside the artifact, <outdir>.meta.json (esbuild's metafile). A template's
// custom-runtime layer (AWS::Serverless::LayerVersion) goes to runtime-layer.mts.

import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import {
  build,
  type Message as EsbuildMessage,
  type BuildOptions as EsbuildOptions,
  version as esbuildVersion,
  type Metafile,
  type Plugin,
  transform,
} from "esbuild";
import { type OpenInitServices, openAhead } from "../core/init-services.mts";
import { appDirOf, foldersUp, PACKAGE_ROOT, sampleEventOf } from "../core/paths.mts";
import { type ManagedRuntime, RUNTIMES, type Runtime, type RuntimeName, runtimeOf } from "../core/runtimes.mts";
import { buildParameterOverrides } from "../core/samconfig.mts";
import { fixedName, NAMED_TYPES, notFunctionsOf, readTemplate, type SamTemplate, type TemplateFunction, templateAsWritten } from "../core/template.mts";
import { ensurePart } from "../core/tools.mts";
import { envVarsFileOf } from "../emulation/env-vars.mts";
import { labOverlayOf, placeholdersLine } from "../emulation/function-environment.mts";
import { installRuntimeSdk, runtimeCarries, runtimeSdkTreesOf } from "../emulation/runtime-sdk.mts";
import { CHUNK_MARK, SDK_CHUNK_FILE, WARP_EXEC_WRAPPER } from "../src/contract.mts";
import { appPatches, appPatchFiles } from "./app-patches.mts";
import { buildCacheOn, digest, fileDigest, filesRead, keepBuild, type Recipe, restoreBuild } from "./build-cache.mts";
import {
  buildFailure,
  type CodeCache,
  CodeCacheError,
  compileCacheBundleOf,
  makeCodeCache,
  makeNodeCompileCache,
  type NodeCompileCache,
  PORTABLE_COMPILE_CACHE_NODE,
  startInitServerFor,
  writeCompileCacheLoader,
} from "./code-cache.mts";
import { installDependencies } from "./dependencies.mts";
import { BuildError } from "./errors.mts";
import { type HandlerSource, handlerParts, handlerSource, outputFileOf } from "./handler.mts";
import { layerPackages, leftToLayers } from "./layer-packages.mts";
import { DEFAULT_PROFILE, PROFILES, type Profile, profileForNode, profileNamed } from "./profiles.mts";
import { buildRuntimeLayer, runtimeOfLayer } from "./runtime-layer.mts";
import {
  type ChunkLibraries,
  chunkEntry,
  chunkLibraries,
  packageOf,
  replaceFiles,
  runtimeServing,
  SDK_PACKAGE,
  type SdkImports,
  scanSdkImports,
  sdkFromChunk,
  sdkFromRuntime,
  sdkFromRuntimeCopy,
  sdkFromTree,
  sdkServing,
  serviceHosts,
} from "./sdk.mts";
import { installedVersion, patchedTree, publishedTree, type SdkTree, WARPSTART_TREE } from "./sdk-tree.mts";
import { sharedChunk, sharedChunksDir } from "./shared-chunks.mts";
import { warmStartupCache } from "./startup-caches.mts";

/** One function of a template, to be built with a profile (its own, or one asked for). */
export interface FunctionBuild {
  template: SamTemplate;
  fn: TemplateFunction;
  profileName: string;
  profile: Profile;
  /**
   * The name of the runtime the function runs on once deployed (core/runtimes.mts), as the template
   * was read (with the parameters of its build: a Runtime parameter may choose it), worked out when
   * first asked: a function whose runtime the lab cannot run is still one whose profile can be asked for.
   */
  deployedRuntime: () => string;
}

export function functionBuild(template: SamTemplate, logicalId: string, profileName?: string): FunctionBuild {
  const fn = template.functions.find((candidate) => candidate.logicalId === logicalId);
  if (!fn) throw new BuildError(notFunctionsOf(template, [logicalId])!);
  const named = profileName ?? fn.buildProperties.Profile ?? DEFAULT_PROFILE;
  if (typeof named !== "string") throw new BuildError(`${logicalId}: Metadata.BuildProperties.Profile must be a profile's name, not ${JSON.stringify(named)}`);
  const deployedRuntime = () => runtimeOf(fn).name;
  try {
    return { template, fn, profileName: named, profile: profileNamed(named), deployedRuntime };
  } catch (error) {
    throw new BuildError(`${logicalId}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Metadata.BuildProperties.Define: constants embedded at build time instead of environment
 * variables. A value is a string, number or boolean, or `!Ref` to a resource of the template
 * with a fixed name (embedded as that name: a secret's too, which GetSecretValue takes as SecretId).
 */
export function templateDefines(template: SamTemplate, fn: TemplateFunction): Record<string, string> {
  const define = fn.buildProperties.Define ?? {};
  if (typeof define !== "object" || Array.isArray(define))
    throw new BuildError(`${fn.logicalId}: Metadata.BuildProperties.Define must be a map of constant names to values`);
  return Object.fromEntries(
    Object.entries(define as Record<string, unknown>).map(([name, value]) => {
      if (!/^[A-Za-z_$][\w$]*$/.test(name)) throw new BuildError(`${fn.logicalId}: Define ${name}: not an identifier a handler can use`);
      if (["string", "number", "boolean"].includes(typeof value)) return [name, JSON.stringify(value)];
      const ref = (value as { Ref?: unknown } | null)?.Ref;
      const resource = template.resources.find((candidate) => candidate.logicalId === ref);
      if (!resource) {
        throw new BuildError(
          `${fn.logicalId}: Define ${name}: ${JSON.stringify(value)} cannot be embedded at build time; use a string, a number, a boolean or !Ref to a resource of the template with a fixed name (a parameter's value is chosen at deploy time: pass it through Environment instead)`,
        );
      }
      const type = NAMED_TYPES[resource.type];
      const resourceName = fixedName(resource);
      if (!type || resourceName === null) {
        throw new BuildError(
          `${fn.logicalId}: Define ${name}: !Ref ${resource.logicalId} has no name before deploy time${type ? `: give it one (${type.nameProperty}) so the build can embed it` : ` (${resource.type})`}, or pass it through Environment instead`,
        );
      }
      return [name, JSON.stringify(resourceName)];
    }),
  );
}

/** Whether a function is built with keep-alive: the template's Define KEEP_ALIVE (the identity handlers read it), on unless false. */
export const keepsAlive = (fn: Pick<TemplateFunction, "buildProperties">) =>
  (fn.buildProperties.Define as Record<string, unknown> | undefined)?.KEEP_ALIVE !== false;

/** The patches the tree was made without, by the package version each did not fit, in one line. */
function skippedLine(skipped: SdkTree["skipped"]): string {
  const byPackage = new Map<string, string[]>();
  for (const { patch, pkg, version, madeFor } of skipped) {
    const where = `made on ${pkg} ${madeFor}, the app has ${version}`;
    byPackage.set(where, [...(byPackage.get(where) ?? []), patch]);
  }
  const parts = [...byPackage].map(([where, patches]) => `${patches.join(", ")} (${where})`);
  return `built without the patches that do not fit the SDK the app installs: ${parts.join("; ")}`;
}

/**
 * One line per thing the SDK tree could not give the build as its profile says: a patch that does
 * not apply to the version the app installs, an SDK file Warp replaces that this version does not
 * have, an app that installs no SDK (its functions get warpstart's tree, at its versions).
 */
export function treeNotes(imports: SdkImports, tree: SdkTree, replaced: string[]): string[] {
  if (imports.size === 0) return [];
  const clients = [...new Set([...imports.keys()].map(packageOf))].map((pkg) => `${pkg} ${installedVersion(tree.dir, pkg)}`);
  return [
    ...(tree.from === WARPSTART_TREE
      ? [`the app installs no @aws-sdk/* package: bundles warpstart's own (${clients.join(", ")}); npm install the clients it uses to choose their versions`]
      : []),
    ...(tree.skipped.length ? [skippedLine(tree.skipped)] : []),
    ...replaced
      .filter((file) => !existsSync(join(tree.dir, "node_modules", file)))
      .map((file) => `built without replacing ${file}: the SDK version the app installs has no such file`),
  ];
}

/** The line of a Warp build whose code imports SDK packages only the runtime's copy has (the app installs none): bundled, not cached. */
function runtimeCopyNote(packages: Set<string>): string {
  const names = [...packages];
  return `bundles ${names.join(", ")} from the runtime's SDK copy, which the app does not install: outside the chunk and its code cache; npm install ${names.join(" ")} to cache ${names.length > 1 ? "them" : "it"} too`;
}

/** What the built handler reports as its SDK version: the imported clients' versions in the tree bundled. */
function sdkVersion(imports: SdkImports, tree: string | null): string {
  if (!tree) return "provided by the runtime";
  const packages = [...new Set([...imports.keys()].map(packageOf).filter((pkg) => pkg.startsWith("@aws-sdk/client-")))];
  const versions = packages.map((pkg) => `${pkg}@${installedVersion(tree, pkg)}`);
  const distinct = [...new Set(versions.map((version) => version.split("@").pop()))];
  return packages.length === 0 ? "none" : distinct.length === 1 ? distinct[0]! : versions.join(", ");
}

/**
 * What an ES-module bundle of CommonJS code needs that Node gives CommonJS modules: a real
 * `require` (esbuild's stand-in throws "Dynamic require of ... is not supported") and the module's
 * path, which in a bundle is the bundle's (as SAM users' banners make it).
 */
const COMMONJS_IN_ESM: Pick<EsbuildOptions, "banner" | "define"> = {
  banner: { js: 'import { createRequire as __warpstartCreateRequire } from "node:module";\nconst require = __warpstartCreateRequire(import.meta.url);' },
  define: { __filename: "import.meta.filename", __dirname: "import.meta.dirname" },
};

/**
 * The entry of the handler's bundle: its source, or, for an ES module built from a CommonJS source
 * (`exports.handler = ...`), a module re-exporting the handler's export from it: esbuild's ES-module
 * bundle of a CommonJS entry exports only `default`, and the runtime looks the handler up by name.
 */
function handlerEntry(fn: TemplateFunction, source: string, fromCommonJs: boolean): Pick<EsbuildOptions, "entryPoints" | "stdin"> {
  if (!fromCommonJs) return { entryPoints: [source] };
  const [exported] = handlerParts(fn.handler).exportPath.split(".");
  return { stdin: { contents: `export { ${exported} } from ${JSON.stringify(source)};`, resolveDir: dirname(source), sourcefile: "<handler>", loader: "js" } };
}

export interface BuildResult {
  /** The built handler module (absolute). */
  outfile: string;
  metafile: string;
  bytes: number;
  codeCache?: CodeCache;
  /** Node's module compile cache a NodeCompileCache build ships. */
  compileCache?: NodeCompileCache;
  /** What the build could not do as its profile says, a line each. */
  notes?: string[];
  /** Whether it came from the build cache (builder/build-cache.mts) rather than a build made now. */
  kept?: true;
  /** Why a Warp build could not make its code cache and is Optimized's instead (its first note says so). */
  fellBack?: string;
}

export interface BuildOptions {
  /** What a Warp build's INIT runs against (core/init-services.mts). */
  initServices: OpenInitServices;
  /** Patches (by name: lazy-zlib) to leave out of the patched SDK tree, to measure what each one does. */
  leaveOutPatches?: string[];
}

/** Runs esbuild for a function; what esbuild could not do becomes one line per error, with where it happened. */
async function esbuildStep<T>(fn: TemplateFunction, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const { errors } = error as { errors?: EsbuildMessage[] };
    if (!errors?.length) throw new BuildError(`${fn.logicalId}: esbuild failed: ${(error as Error).message}`, { cause: error });
    throw new BuildError(errors.map((message) => `${fn.logicalId}: esbuild cannot bundle it: ${describeEsbuildError(message, fn.codeDir)}`).join("\n"), {
      cause: error,
    });
  }
}

/** Whether a package has only its types installed where a file would resolve it (node_modules/@types/<name> in its folder or above). */
function typesOnlyFor(file: string, name: string): boolean {
  const types = join("node_modules/@types", name.replace(/^@([^/]+)\//, "$1__"));
  return foldersUp(dirname(file)).some((dir) => existsSync(join(dir, types)));
}

/**
 * One esbuild error in a line: the file (from the function's CodeUri, as its Handler is) and line,
 * what went wrong, and esbuild's own hint, or ours when the package it cannot resolve has only its
 * types installed (@types/<name>): an `import { X } from "aws-lambda"` of types stays an import
 * under verbatimModuleSyntax.
 */
function describeEsbuildError({ text, location, notes }: EsbuildMessage, codeDir: string): string {
  const file = location ? resolve(PACKAGE_ROOT, location.file) : null;
  const where = file ? `${relative(codeDir, file)}:${location!.line}: ` : "";
  const unresolved = /^Could not resolve "([^"./][^"]*)"$/.exec(text)?.[1];
  const typesOnly = unresolved && file && typesOnlyFor(file, unresolved);
  const hint = typesOnly
    ? `only its types are installed, as @types/${unresolved}: import them with \`import type\`, which the project's tsconfig.json (verbatimModuleSyntax) asks for`
    : notes.map((note) => note.text).find((note) => note.length > 0);
  return `${where}${text}${hint ? ` (${hint})` : ""}`;
}

/**
 * Builds one function into outdir (emptied first): its bundle, Warp's code cache of it, the custom
 * runtimes' startup caches. A build whose inputs are all as they were is copied from the build
 * cache instead (unless WARPSTART_BUILD_CACHE is "off") (builder/build-cache.mts); a build from an SDK tree of the caller's is always made.
 */
export async function buildFunction(asked: FunctionBuild, outdir: string, options: BuildOptions): Promise<BuildResult> {
  const runtime = buildRuntimeOf(asked);
  const forNode = profileForNode(asked.profile, runtime.nodeMajor);
  const fnBuild = { ...asked, profile: forNode.profile };
  const { template, fn, profile, profileName } = fnBuild;
  if (profile.nodeCompileCache && runtime.nodeMajor < PORTABLE_COMPILE_CACHE_NODE)
    throw new BuildError(
      `${fn.logicalId}: Node ${runtime.nodeMajor}'s compile cache is keyed by each module's absolute path, which a cache made at build time cannot know (/var/task on Lambda): portable caches came with Node 24.12, so ${profileName} builds for nodejs${PORTABLE_COMPILE_CACHE_NODE}.x and later`,
    );
  const recipe: Recipe | null =
    buildCacheOn() && !options.leaveOutPatches?.length
      ? {
          profileName,
          fn,
          resources: template.resources,
          deployedRuntime: fnBuild.deployedRuntime(),
          layerPackages: layerPackages(fn.layers),
          // What a Warp build's INIT reads: the function's sample event, the app's values for its environment.
          alsoReads: [
            ...appPatchFiles(fn.codeDir, appDirOf(template.file)),
            ...(profile.codeCache || profile.nodeCompileCache ? [sampleEventOf(template.file, fn.logicalId), envVarsFileOf(template.file)] : []),
          ],
        }
      : null;
  const kept = recipe && restoreBuild<Pick<BuildResult, "bytes" | "codeCache" | "compileCache" | "notes" | "fellBack">>(recipe, outdir);
  if (kept) return { outfile: kept.outfile, metafile: kept.metafile, ...kept.result, kept: true };
  // What its INIT runs against starts while it bundles: at a sam build's first Warp build, the local
  // AWS and, under qemu, the INIT's Node take seconds to start.
  const ahead = profile.codeCache || profile.nodeCompileCache ? openAhead(options.initServices, template, fn) : null;
  if (profile.codeCache) startInitServerFor({ template, fn, runtime, artifactDir: outdir });
  try {
    const { outfile, metafile, notes, ...made } = await makeBuild(fnBuild, runtime, outdir, { ...options, initServices: ahead?.open ?? options.initServices });
    const result = { ...made, notes: [...(forNode.note ? [forNode.note] : []), ...notes] };
    if (recipe) keepBuild(recipe, outdir, outfile, metafile, result);
    return { outfile, metafile, ...result };
  } finally {
    ahead?.close();
  }
}

/** A function's build made now, not restored from the build cache. */
async function makeBuild(
  fnBuild: FunctionBuild,
  runtime: ManagedRuntime,
  outdir: string,
  options: BuildOptions,
): Promise<Omit<BuildResult, "kept"> & { notes: string[] }> {
  const { template, fn, profile } = fnBuild;
  let bundle = await bundleFunction(fnBuild, runtime, outdir, options);
  const { exportPath } = handlerParts(fn.handler);
  shipExecWrapper(fn, outdir);
  let codeCache: CodeCache | undefined;
  let fellBack: string | undefined;
  if (profile.codeCache && bundle.chunked) {
    try {
      codeCache = await makeCodeCache(
        {
          template,
          fn,
          runtime,
          artifactDir: outdir,
          handlerFile: bundle.handlerFile,
          exportPath,
          firstInvoke: profile.firstInvoke,
          deferBuiltins: profile.deferBuiltins,
        },
        options.initServices,
      );
    } catch (error) {
      if (!(error instanceof CodeCacheError)) throw error;
      // Never a failed sam build for want of a cache: the function's Optimized build, and why (its metafile says so too).
      fellBack = buildFailure(error.message);
      bundle = await bundleFunction({ ...fnBuild, profile: PROFILES.Optimized }, runtime, outdir, options);
      shipExecWrapper(fn, outdir);
      const metafile = JSON.parse(readFileSync(bundle.metafile, "utf8")) as BuildMetafile;
      writeFileSync(bundle.metafile, JSON.stringify({ ...metafile, fellBack }));
    }
  }
  let compileCache: NodeCompileCache | undefined;
  if (profile.nodeCompileCache) {
    const artifact = { template, fn, runtime, artifactDir: outdir, handlerFile: bundle.handlerFile, exportPath };
    try {
      compileCache = await makeNodeCompileCache(artifact, options.initServices);
    } catch (error) {
      if (!(error instanceof CodeCacheError)) throw error;
      throw new BuildError(`${fn.logicalId}: ${buildFailure(error.message)}`, { cause: error });
    }
  }
  await warmStartupCache(outdir, bundle.handlerFile, fnBuild.deployedRuntime());
  const notes = [
    ...(fellBack ? [`${FELL_BACK}${fellBack}`] : []),
    ...bundle.notes,
    ...(codeCache?.stoppedBy ? [`its code cache holds what INIT compiled until it failed: ${codeCache.stoppedBy}`] : []),
    ...(codeCache ? placeholderNotes(codeCache) : []),
  ];
  return { outfile: bundle.outfile, metafile: bundle.metafile, bytes: bundle.bytes, codeCache, compileCache, notes, fellBack };
}

/** The start of the note of a Warp build that could not make its code cache and built Optimized instead. */
const FELL_BACK = "Warp could not make its code cache, so it is built as Optimized: ";

/** The line of a build-time INIT that ran with placeholders, without the function's name (the build's notes are prefixed with it). */
function placeholderNotes({ variables }: CodeCache): string[] {
  const line = placeholdersLine(variables);
  return line ? [`its build-time INIT ran with placeholders: ${line}`] : [];
}

/** The exec wrapper that drops the runtime's V8 flags (src/warp/warp-exec), for a function whose AWS_LAMBDA_EXEC_WRAPPER names it. */
function shipExecWrapper(fn: TemplateFunction, outdir: string): void {
  if (fn.environment.AWS_LAMBDA_EXEC_WRAPPER !== WARP_EXEC_WRAPPER) return;
  const shipped = join(outdir, relative("/var/task", WARP_EXEC_WRAPPER));
  copyFileSync(join(PACKAGE_ROOT, "src/warp/warp-exec"), shipped);
  chmodSync(shipped, 0o755);
}

/**
 * A function's source, the module format its build writes and the esbuild options of its profile.
 * The tool a peer profile stands for writes CommonJS, which cannot await at the top level: its
 * users build such a handler as an ES module (Format: esm) for es2022, the first ES with it, and
 * the note says so.
 */
export async function formatOf(
  fn: TemplateFunction,
  profile: Profile,
): Promise<{ source: string; format: HandlerSource["format"]; esbuild: EsbuildOptions; note: string | null }> {
  const { source, format } = handlerSource(fn, profile.format);
  const awaitsAtTop = format === "cjs" && profile.format !== undefined && fn.buildProperties.Format === undefined && (await awaitsAtTopLevel(source));
  if (!awaitsAtTop) return { source, format, esbuild: profile.esbuild, note: null };
  const esbuild = profile.esbuild.target ? { ...profile.esbuild, target: "es2022" } : profile.esbuild;
  return {
    source,
    format: "esm",
    esbuild,
    note: `its handler awaits at the top level, which CommonJS cannot: built as an ES module${esbuild.target ? ` for ${esbuild.target}` : ""}, as its tool's users set it (Format: esm)`,
  };
}

/** Whether a handler's source awaits at the top level: esbuild refuses to write it as CommonJS. */
async function awaitsAtTopLevel(source: string): Promise<boolean> {
  try {
    await transform(readFileSync(source, "utf8"), { loader: /\.[cm]?ts$/.test(source) ? "ts" : "js", format: "cjs", sourcefile: source, logLevel: "silent" });
    return false;
  } catch (error) {
    return ((error as { errors?: EsbuildMessage[] }).errors ?? []).some((message) => message.text.startsWith("Top-level await is currently not supported"));
  }
}

/** A function's esbuild bundle in outdir: the handler and, when its profile loads the SDK as a chunk, the chunk. */
interface Bundle {
  outfile: string;
  /** The handler module, relative to outdir. */
  handlerFile: string;
  metafile: string;
  bytes: number;
  /** Whether the SDK and the libraries are a chunk beside the handler (what Warp's code cache is made of). */
  chunked: boolean;
  /** What the build could not do as its profile says, a line each. */
  notes: string[];
}

/** The managed runtime a function's build is for: the one it deploys to, nodejs22.x's for a custom one (where Raw cannot run). */
function buildRuntimeOf(fnBuild: FunctionBuild): ManagedRuntime {
  const deployed: Runtime | undefined = RUNTIMES[fnBuild.deployedRuntime() as RuntimeName];
  return deployed?.kind === "managed" ? deployed : RUNTIMES.node22;
}

/** Where Lambda extracts a function's layers: what its code imports by an absolute path there is left to run time. */
const LAYER_PATHS = "/opt/*";

/** Bundles the handler (and the chunk) into outdir, emptied first, with the metafile beside it. */
async function bundleFunction(fnBuild: FunctionBuild, runtime: ManagedRuntime, outdir: string, options: BuildOptions): Promise<Bundle> {
  const { template, fn, profileName, profile } = fnBuild;
  const { source, format, esbuild: toolOptions, note: formatNote } = await formatOf(fn, profile);
  const published = profile.sdk === "runtime" ? null : publishedTree(source);
  if (published === WARPSTART_TREE) ensurePart("published");
  const sdkTree: SdkTree | null =
    published === null ? null : profile.sdk === "patched" ? patchedTree(published, options.leaveOutPatches) : { dir: published, from: published, skipped: [] };
  const tree = sdkTree?.dir ?? null;
  const defines = templateDefines(template, fn);
  // What the function's own layers provide is resolved in /opt at run time, as on Lambda: not bundled.
  // But the SDK: a profile's build bundles it (its own tree's), whoever else ships a copy.
  const leftForLayers = new Set<string>();
  const fromLayers = layerPackages(fn.layers)
    .filter((name) => !SDK_PACKAGE.test(`${name}/`))
    .flatMap((name) => [name, `${name}/*`]);
  // An app's code (the doctor's builds) gets an SDK package it does not ship where Lambda's NODE_PATH has it: the runtime's SDK copy, at its release.
  const outsideProject = relative(PACKAGE_ROOT, source).startsWith("..");
  // What the runtime carries and its stand-in lacks yet is installed on first use, as the lab does, said on stderr (a build's output is its result).
  const installFromRuntime = (pkg: string) => installRuntimeSdk(runtime, [pkg], (line) => console.error(`${fn.logicalId}: ${line}`));
  // Read once: every esbuild call of this build (scan, chunk, handler) loads the files they patch as patched.
  const appDir = appDirOf(template.file);
  const patchFiles = appPatchFiles(fn.codeDir, appDir);
  const patches = appPatches(patchFiles, appDir);
  // The handler's own constants, which the chunk (packages alone) never reads: it is the same for each function importing the same ones.
  const handlerDefines = { ...defines, WARPSTART_FUNCTION: JSON.stringify(fn.logicalId), WARPSTART_PROFILE: JSON.stringify(profileName) };
  const shared = (plugins: Plugin[], define: Record<string, string> = handlerDefines): EsbuildOptions => ({
    target: `node${runtime.nodeMajor}`, // unless the tool a peer profile stands for sets its own
    ...toolOptions,
    // A layer's file imported by its absolute path is Lambda's to load from /opt, as the function's owner wrote it.
    external: [...(toolOptions.external ?? []), ...fromLayers, LAYER_PATHS],

    absWorkingDir: PACKAGE_ROOT,
    platform: "node",
    metafile: true,
    logLevel: "silent",
    define,
    plugins: [
      ...patches,
      ...plugins,
      ...(outsideProject ? [sdkFromRuntimeCopy(() => runtimeSdkTreesOf(runtime), installFromRuntime)] : []),
      ...(fn.layers.length ? [leftToLayers(leftForLayers)] : []),
    ],
  });
  const serve = tree ? sdkServing(tree) : null;
  // Raw leaves to the runtime what it carries.
  const carries = (pkg: string) => runtimeCarries(runtime, pkg);
  const withLibraries = Boolean(profile.sdkChunk && profile.libraryChunk && tree);
  const scan = await esbuildStep(fn, () => scanSdkImports({ ...shared([]), entryPoints: [source] }, serve ?? runtimeServing(carries), withLibraries));
  if (scan.problems.length) throw new BuildError(`${fn.logicalId}: ${scan.problems.join(`\n${fn.logicalId}: `)}`);
  const { imports } = scan;
  // A function that imports no package has no chunk to load nor cache: Warp builds it as Optimized does.
  let chunked = Boolean(profile.sdkChunk && tree && imports.size + scan.libraries.size > 0);
  const treePlugins = (handler: boolean, libraries: ChunkLibraries = new Map()) =>
    tree && serve
      ? [
          handler && chunked ? sdkFromChunk(tree, serve, profile.earlyLookup ? serviceHosts(imports, tree) : [], libraries) : sdkFromTree(tree, serve),
          ...(profile.replace ? [replaceFiles(tree, profile.replace)] : []),
        ]
      : [sdkFromRuntime(carries)];
  const esm = (options: EsbuildOptions, commonJs: boolean): EsbuildOptions =>
    commonJs ? { ...options, ...COMMONJS_IN_ESM, define: { ...options.define, ...COMMONJS_IN_ESM.define } } : options;
  const withVersion = (options: EsbuildOptions): EsbuildOptions => ({
    ...options,
    define: { ...options.define, WARPSTART_SDK_VERSION: JSON.stringify(sdkVersion(imports, tree)) },
  });

  // The handler's folder: Warp's chunk goes beside the handler, whatever format that is written in.
  const { module, exportPath } = handlerParts(fn.handler);
  const handlerDir = join(outdir, dirname(module));
  rmSync(outdir, { recursive: true, force: true });
  rmSync(labOverlayOf(outdir), { recursive: true, force: true });
  mkdirSync(handlerDir, { recursive: true });
  const metafiles: Metafile[] = [];
  let libraries: ChunkLibraries = new Map();
  let notes = sdkTree ? treeNotes(imports, sdkTree, Object.keys(profile.replace ?? {})) : [];
  if (formatNote) notes = [...notes, formatNote];
  if (profile.sdkChunk && scan.leftToCode.size > 0) notes = [...notes, runtimeCopyNote(scan.leftToCode)];
  if (chunked) {
    const chunkFile = join(handlerDir, SDK_CHUNK_FILE);
    // Shared in a sam build but with layers, whose plugin notes what it leaves to them as it builds.
    const sharedIn = fn.layers.length ? null : sharedChunksDir(outdir);
    const buildChunk = (held: ChunkLibraries): Promise<Metafile> => {
      const chunkOptions = withVersion({
        ...withImportMeta(shared(treePlugins(false), defines)),
        stdin: { contents: chunkEntry(imports, held), resolveDir: PACKAGE_ROOT, sourcefile: "<sdk-chunk>", loader: "js" },
        outfile: chunkFile,
        format: "cjs",
      });
      // What the chunk's esbuild call depends on besides the files it reads: its options (where it
      // is written only as far as its paths to the sources go), and what its plugins read from.
      const recipe = {
        options: { ...chunkOptions, outfile: relative(handlerDir, PACKAGE_ROOT) },
        tree,
        replace: profile.replace,
        patches: patchFiles.map((file) => [file, fileDigest(file)]),
        runtimeCopy: outsideProject ? runtime.name : null,
        esbuild: esbuildVersion,
      };
      return sharedChunk(sharedIn, recipe, chunkFile, async () => markChunk(chunkFile, (await build(chunkOptions)).metafile!));
    };
    libraries = chunkLibraries(scan.libraries, PACKAGE_ROOT);
    try {
      metafiles.push(await buildChunk(libraries));
    } catch (error) {
      // A library CommonJS cannot hold (top-level await): the handler's bundle keeps the libraries, and the chunk the SDK, if any.
      const first = (error as { errors?: EsbuildMessage[] }).errors?.[0];
      if (!libraries.size || !first) throw error;
      notes = [...notes, `its packages stay in the handler's bundle, out of the code cache: ${describeEsbuildError(first, fn.codeDir)}`];
      libraries = new Map();
      chunked = imports.size > 0;
      if (chunked) metafiles.push(await esbuildStep(fn, () => buildChunk(libraries)));
    }
  }
  const outputFile = outputFileOf(module, format);
  const handlerOptions = withVersion({
    ...shared(treePlugins(true, libraries)),
    ...handlerEntry(fn, source, format === "esm" && scan.commonJsEntry),
    // A NodeCompileCache build's handler is the loader that enables the cache (written below), beside its bundle.
    outfile: join(outdir, profile.nodeCompileCache ? compileCacheBundleOf(outputFile) : outputFile),
    format,
  });
  const inFormat = (commonJs: boolean) => (format === "esm" ? esm(handlerOptions, commonJs) : withImportMeta(handlerOptions));
  let handlerBundle = await esbuildStep(fn, () => build(inFormat(scan.hasCommonJs)));
  // The SDK, which the scan left outside, may hold CommonJS too (an older release's @aws/lambda-invoke-store requires async_hooks).
  if (format === "esm" && !scan.hasCommonJs && Object.values(handlerBundle.metafile!.inputs).some((input) => input.format === "cjs")) {
    handlerBundle = await esbuildStep(fn, () => build(inFormat(true)));
  }
  if (profile.nodeCompileCache) writeCompileCacheLoader(join(outdir, outputFile), exportPath);
  metafiles.push(handlerBundle.metafile!);
  if (leftForLayers.size)
    notes = [
      ...notes,
      `${[...leftForLayers].sort().join(", ")}: not among its own packages, so left to its layers at run time, as Lambda's module path finds them there (outside the bundle${profile.codeCache ? " and its code cache" : ""})`,
      ...(leftForLayers.has("aws-sdk")
        ? [
            "aws-sdk is the SDK v2, which no runtime from nodejs18.x carries: unless a layer ships it, INIT fails with Cannot find module 'aws-sdk', on Lambda as in the lab (npm install aws-sdk, or move to the v3 clients, @aws-sdk/client-*)",
          ]
        : []),
    ];
  return { outfile: join(outdir, outputFile), handlerFile: outputFile, chunked, notes, ...writeMetafile(outdir, metafiles, fnBuild.deployedRuntime()) };
}

/**
 * Starts the chunk with its mark (CHUNK_MARK: a hash of the text esbuild wrote), the id its code
 * cache's header names. Line 1 is the banner's, so no position a source map or a stack names moves.
 */
function markChunk(file: string, metafile: Metafile): Metafile {
  const text = readFileSync(file, "utf8");
  const mark = `${CHUNK_MARK}${digest(text).slice(0, 16)}*/`;
  writeFileSync(file, mark + text);
  const written = Object.entries(metafile.outputs).find(([path]) => resolve(PACKAGE_ROOT, path) === file)?.[1];
  if (written) written.bytes += Buffer.byteLength(mark);
  return metafile;
}

/**
 * An ES module in a CommonJS bundle (a CommonJS handler's, Warp's chunk) keeps its import.meta, as
 * the bundle's file (esbuild's own leaves it empty); node:url only when the url is read.
 */
function withImportMeta(options: EsbuildOptions): EsbuildOptions {
  const meta =
    'var __warpstartImportMeta = { dirname: __dirname, filename: __filename, get url() { return require("node:url").pathToFileURL(__filename).href; } };';
  return { ...options, banner: { js: meta }, define: { ...options.define, "import.meta": "__warpstartImportMeta" } };
}

/** esbuild's metafile of a build, with the runtime the build was for (what staleReason reads beside its inputs) and why a Warp build is Optimized's. */
type BuildMetafile = Metafile & { runtime?: string; fellBack?: string };

/** Why the build in an artifact folder is Optimized's where its profile is Warp (its metafile says), or null. */
export function fellBackIn(artifactDir: string): string | null {
  const metafile = `${artifactDir.replace(/\/+$/, "")}.meta.json`;
  if (!existsSync(metafile)) return null;
  return (JSON.parse(readFileSync(metafile, "utf8")) as BuildMetafile).fellBack ?? null;
}

/** The bundles' metafiles merged into <outdir>.meta.json (what staleReason reads), and the bytes they wrote. */
function writeMetafile(outdir: string, metafiles: Metafile[], runtime: string): { metafile: string; bytes: number } {
  const merged: BuildMetafile = {
    inputs: Object.assign({}, ...metafiles.map((m) => m.inputs)),
    outputs: Object.assign({}, ...metafiles.map((m) => m.outputs)),
    runtime,
  };
  const metafile = `${outdir.replace(/\/+$/, "")}.meta.json`;
  writeFileSync(metafile, JSON.stringify(merged));
  return { metafile, bytes: Object.values(merged.outputs).reduce((sum, output) => sum + output.bytes, 0) };
}

/**
 * Why a function's artifact in outdir is out of date (null: it is not): missing, built for another
 * runtime than `fnBuild` deploys to, or older than the template or any input its last build read
 * (esbuild's metafile).
 */
export function staleReason(templateFile: string, fnBuild: FunctionBuild, outdir: string): string | null {
  const { fn } = fnBuild;
  // A peer's CommonJS build of code that awaits at the top level is an ES module.
  const { module } = handlerParts(fn.handler);
  const built = [handlerSource(fn, fnBuild.profile.format).outputFile, outputFileOf(module, "esm")].map((file) => join(outdir, file)).find(existsSync) ?? "";
  const metafile = `${outdir.replace(/\/+$/, "")}.meta.json`;
  if (!existsSync(built) || !existsSync(metafile)) return `${fn.logicalId} has not been built`;
  const { inputs, runtime } = JSON.parse(readFileSync(metafile, "utf8")) as BuildMetafile;
  if (runtime !== fnBuild.deployedRuntime()) return `${fn.logicalId} was built for ${runtime ?? "another runtime"}, and runs on ${fnBuild.deployedRuntime()}`;
  const builtAt = statSync(metafile).mtimeMs;
  const newer = [templateFile, ...filesRead({ inputs }).map((input) => resolve(PACKAGE_ROOT, input))].find(
    (file) => !existsSync(file) || statSync(file).mtimeMs > builtAt,
  );
  return newer ? `${relative(process.cwd(), newer)} changed since ${fn.logicalId} was built` : null;
}

/** How each architecture's code cache was checked: on a test INIT of this build, or, under qemu, by an earlier build's of the same Node and flags. */
function cacheChecks({ architectures, checkedBefore }: CodeCache): string {
  const tested = architectures.filter((architecture) => !checkedBefore.includes(architecture));
  const now = tested.length ? `${tested.join(" and ")}: ${tested.length > 1 ? "each " : ""}accepted on a test INIT` : "";
  const before = checkedBefore.length ? `${checkedBefore.join(" and ")}: accepted on an earlier build's, of the same Node and flags` : "";
  return [now, before].filter(Boolean).join("; ");
}

/** Builds a template resource: a function, or a custom runtime's layer. */
export async function buildResource(templateFile: string, logicalId: string, outdir: string, initServices: OpenInitServices): Promise<string> {
  // SAM builds a layer whatever its Condition says: look at every resource, not the present ones.
  if (templateAsWritten(templateFile).Resources[logicalId]?.Type === "AWS::Serverless::LayerVersion") {
    await buildRuntimeLayer(runtimeOfLayer(logicalId), outdir, { binary: "lambda" });
    return `built the ${logicalId} layer: ${outdir}`;
  }
  // The template as sam build read it: the app's samconfig.toml's build parameters, and those its `sam build` was given.
  const fnBuild = functionBuild(readTemplate(templateFile, buildParameterOverrides(join(appDirOf(templateFile), "samconfig.toml"))), logicalId);
  const installed = await installDependencies(fnBuild.fn.codeDir, appDirOf(templateFile));
  const { outfile, bytes, codeCache, compileCache, kept, notes = [] } = await buildFunction(fnBuild, outdir, { initServices });
  const partial = codeCache?.refused.length ? `, made from INIT until its connection to ${codeCache.refused.join(" and ")}` : "";
  const cache = codeCache
    ? `, V8 code cache ${(codeCache.bytes / 1024).toFixed(1)} KiB (${cacheChecks(codeCache)}${partial})`
    : compileCache
      ? `, Node's compile cache ${(compileCache.bytes / 1024).toFixed(1)} KiB (${compileCache.architectures.join(" and ")}: each accepted on a test INIT)`
      : "";
  // The environment the tool a peer stands for adds: a build cannot write the template's, so sam build's output says it.
  const missing = Object.entries(fnBuild.profile.environment ?? {}).filter(([name, value]) => fnBuild.fn.environment[name] !== value);
  if (missing.length)
    notes.push(
      `the tool ${fnBuild.profileName} stands for adds ${missing.map(([name, value]) => `${name}=${value}`).join(", ")} to the function's environment: set it in the template's Environment for it to run as that tool's build does`,
    );
  const reused = kept ? ", from the build cache: nothing it reads has changed" : "";
  const built = `built ${logicalId} (${fnBuild.profileName}): ${relative(process.cwd(), outfile)} (${(bytes / 1024).toFixed(1)} KiB${cache})${reused}`;
  return [built, ...[...(installed ? [installed] : []), ...notes].map((note) => `${logicalId}: ${note}`)].join("\n");
}
