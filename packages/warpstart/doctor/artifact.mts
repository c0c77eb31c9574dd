// What the doctor reads of a built function: the handler module Lambda loads and its module
// format, the code INIT loads (from esbuild's metafile: the one this project's build writes beside
// the artifact, or one the doctor makes by bundling the artifact as Lambda would load it), the
// function's own code among it, and the files beside the handler.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { build, type Metafile, type Plugin } from "esbuild";
import { handlerParts, moduleFormat } from "../builder/handler.mts";
import { PACKAGE_ROOT } from "../core/paths.mts";
import type { TemplateFunction } from "../core/template.mts";
import type { BundleSize } from "./findings.mts";

/** The code INIT loads, as a metafile shows it. */
export interface ModuleGraph {
  /** The packages a build bundled into it (a metafile of files that ship as they are says none: Node loads a package's files only when required). */
  bundledPackages: string[];
  /** Bare imports the artifact leaves to run time: resolved from a layer (/opt) or the runtime's own node_modules. */
  runtimeImports: string[];
  /** The function's own files in it (not in node_modules), absolute. */
  ownFiles: string[];
  bundle: BundleSize;
}

export interface OwnCode {
  /** As the report shows it: relative to the project or the artifact. */
  file: string;
  text: string;
}

export interface BuiltFunction {
  /** As the built template has it: CodeUri is the artifact. */
  fn: TemplateFunction;
  /** As the app's template has it, CodeUri its source (absent: the artifact was not read from an app's build). */
  source?: TemplateFunction;
  /** The handler module, relative to the artifact, and how Node loads it. */
  handlerFile: string;
  format: "esm" | "cjs";
  /** Built by this project's pipeline (its metafile is beside the artifact): its fixes are build profiles and properties. */
  pipeline: boolean;
  graph: ModuleGraph;
  ownCode: OwnCode[];
  /** The file names in the handler's folder (a code cache, source maps). */
  besideHandler: string[];
}

const LARGEST_INPUTS = 10;

/** Why the doctor cannot read a built function (the report lists it as skipped). */
export class ArtifactError extends Error {
  override name = "ArtifactError";
}

/** The npm package of a module path (its last node_modules/ segment) or of a bare import, e.g. @aws-sdk/client-sts. */
export function packageName(path: string): string {
  const inModules = path.lastIndexOf("node_modules/");
  const [first = "", second = ""] = (inModules >= 0 ? path.slice(inModules + "node_modules/".length) : path).split("/");
  return first.startsWith("@") ? `${first}/${second}` : first;
}

/** An input that is a file (not esbuild's stdin "<...>" nor a plugin's namespace "ns:..."). */
const isFile = (input: string) => !input.startsWith("<") && !/^[\w-]+:/.test(input);

/**
 * The module graph of a metafile whose paths are relative to `baseDir`. A build's metafile says
 * what each output ships (bytesInOutput); the doctor's own (madeBy "doctor") bundles files
 * that already ship as they are, so their size is theirs.
 */
export function graphOf(metafile: Metafile, baseDir: string, madeBy: "build" | "doctor", shownFrom = baseDir): ModuleGraph {
  const outputs = Object.values(metafile.outputs);
  const shipped = new Map<string, number>();
  for (const output of outputs) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      if (madeBy === "build") shipped.set(input, (shipped.get(input) ?? 0) + bytesInOutput);
      else shipped.set(input, metafile.inputs[input]?.bytes ?? 0);
    }
  }
  const inputs = [...shipped.keys()];
  const runtimeImports = outputs.flatMap((output) =>
    output.imports.filter((imported) => imported.external && !isBuiltin(imported.path) && !/^[./]/.test(imported.path)).map((imported) => imported.path),
  );
  return {
    bundledPackages: madeBy === "build" ? [...new Set(inputs.filter((input) => input.includes("node_modules/")).map(packageName))].sort() : [],
    runtimeImports: [...new Set(runtimeImports)].sort(),
    ownFiles: inputs.filter((input) => isFile(input) && !input.includes("node_modules/")).map((input) => resolve(baseDir, input)),
    bundle: {
      bytes: madeBy === "build" ? outputs.reduce((sum, output) => sum + output.bytes, 0) : [...shipped.values()].reduce((sum, bytes) => sum + bytes, 0),
      largestInputs: [...shipped]
        .sort(([, a], [, b]) => b - a)
        .slice(0, LARGEST_INPUTS)
        .map(([path, bytes]) => ({ path: relative(shownFrom, resolve(baseDir, path)), bytes })),
    },
  };
}

/** The handler module Lambda's Node runtime loads (module.js, .mjs, then .cjs), relative to the artifact. */
function handlerModule(fn: TemplateFunction): string {
  let module: string;
  try {
    module = handlerParts(fn.handler).module;
  } catch (error) {
    throw new ArtifactError((error as Error).message, { cause: error });
  }
  const file = [".js", ".mjs", ".cjs"].map((extension) => `${module}${extension}`).find((candidate) => existsSync(join(fn.codeDir, candidate)));
  if (!file) throw new ArtifactError(`its artifact holds no handler module ${module}.js, .mjs or .cjs`);
  return file;
}

/** This project's build writes esbuild's metafile beside the artifact (builder/build.mts), paths relative to the project; null when it did not build this artifact. */
function buildMetafile(artifactDir: string, handlerFile: string): Metafile | null {
  const file = `${artifactDir.replace(/\/+$/, "")}.meta.json`;
  if (!existsSync(file)) return null;
  const metafile = JSON.parse(readFileSync(file, "utf8")) as Metafile;
  // Left over from an earlier build when the handler it lists is not this one.
  const handler = join(artifactDir, handlerFile);
  return Object.keys(metafile.outputs).some((output) => resolve(PACKAGE_ROOT, output) === handler) ? metafile : null;
}

const RESOLVING = Symbol("resolving");

/**
 * Bundles the artifact from its handler as Lambda loads it, for the metafile: an import the
 * artifact does not hold is left to run time (a layer or the runtime's node_modules), and so is
 * a dynamic import (loaded on first use, not at INIT; a bundle has inlined its own already).
 */
async function artifactMetafile(artifactDir: string, handlerFile: string): Promise<Metafile> {
  const inArtifact = (path: string) => path.startsWith(`${artifactDir}${sep}`);
  const asLambdaLoads: Plugin = {
    name: "as-lambda-loads",
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === "entry-point" || args.pluginData === RESOLVING) return undefined;
        if (args.kind === "dynamic-import") return { path: args.path, external: true };
        const found = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: RESOLVING });
        if (found.errors.length > 0 || found.external || !inArtifact(found.path) || found.path.endsWith(".node")) return { path: args.path, external: true };
        return { path: found.path, namespace: found.namespace, sideEffects: found.sideEffects };
      });
    },
  };
  const { metafile } = await build({
    entryPoints: [join(artifactDir, handlerFile)],
    absWorkingDir: artifactDir,
    outfile: join(artifactDir, "doctor-bundle.mjs"),
    bundle: true,
    write: false,
    metafile: true,
    platform: "node",
    format: "esm",
    target: "esnext",
    logLevel: "silent",
    plugins: [asLambdaLoads],
  });
  return metafile;
}

/** Reads a function of the built template (CodeUri: its artifact). */
export async function readBuiltFunction(fn: TemplateFunction, source?: TemplateFunction): Promise<BuiltFunction> {
  const artifactDir = resolve(fn.codeDir);
  if (!existsSync(artifactDir)) throw new ArtifactError(`its artifact ${relative(process.cwd(), artifactDir)} does not exist: was it built?`);
  const handlerFile = handlerModule(fn);
  const fromBuild = buildMetafile(artifactDir, handlerFile);
  let graph: ModuleGraph;
  try {
    // The build's paths count from the package's folder, which its user never sees: shown from the folder the doctor runs in.
    graph = fromBuild
      ? graphOf(fromBuild, PACKAGE_ROOT, "build", process.cwd())
      : graphOf(await artifactMetafile(artifactDir, handlerFile), artifactDir, "doctor");
  } catch (error) {
    throw new ArtifactError(`esbuild cannot follow its imports from ${handlerFile}: ${(error as Error).message.split("\n")[0]}`, { cause: error });
  }
  const shownFrom = fromBuild ? process.cwd() : artifactDir;
  return {
    fn,
    ...(source ? { source } : {}),
    handlerFile,
    format: moduleFormat(artifactDir, handlerFile, fn),
    pipeline: fromBuild !== null,
    graph,
    ownCode: graph.ownFiles.filter((file) => existsSync(file)).map((file) => ({ file: relative(shownFrom, file), text: readFileSync(file, "utf8") })),
    besideHandler: readdirSync(dirname(join(artifactDir, handlerFile))),
  };
}
