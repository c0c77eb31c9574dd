// What the pipeline does with the AWS SDK: find, through esbuild's own resolution, what a function
// and its libraries import from it; serve it from a profile's SDK tree (published or patched) or
// the runtime's own copy; replace SDK files; and for Warp put it all into one CommonJS chunk that
// src/warp/sdk-chunk-loader.mts loads with a V8 code cache.

import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, relative, sep } from "node:path";
import { ImportType, init as initLexer, parse as parseModule } from "es-module-lexer";
import { type BuildOptions, build, type OnResolveArgs, type Plugin, type PluginBuild } from "esbuild";
import { satisfies, validRange } from "semver";
import { ownModule, PACKAGE_ROOT } from "../core/paths.mts";
import { type ManagedRuntime, RUNTIMES } from "../core/runtimes.mts";
import { installRuntimeTrees, runtimeSdkTreesOf } from "../emulation/runtime-sdk.mts";
import type { ServiceHost } from "../src/contract.mts";
import { installedVersion } from "./sdk-tree.mts";

/** Packages of the SDK: what a Raw build leaves to the runtime and what Warp's chunk holds. */
export const SDK_PACKAGE = /^@(aws-sdk|smithy)\//;
const CHUNK_LOADER = ownModule("src/warp/sdk-chunk-loader");
const EARLY_LOOKUP = ownModule("src/warp/early-lookup");

/** Per SDK specifier the function's code imports: the names it uses, or "*" when it takes the whole module. */
export type SdkImports = Map<string, Set<string> | "*">;

/** The package a specifier belongs to: @aws-sdk/client-ssm/dist-es/x -> @aws-sdk/client-ssm. */
export const packageOf = (specifier: string) => specifier.split("/").slice(0, 2).join("/");

await initLexer;

/**
 * Reads the names each of `specifiers` is imported with out of esbuild's ES-module output (a
 * bundle that kept them external), with a JavaScript lexer: comments and strings are not imports.
 */
export function importedNames(code: string, specifiers: Set<string>): SdkImports {
  const imports: SdkImports = new Map();
  const add = (specifier: string, names: string[] | "*") => {
    const known = imports.get(specifier) ?? new Set<string>();
    if (known === "*" || names === "*") return void imports.set(specifier, "*");
    for (const name of names) known.add(name);
    imports.set(specifier, known);
  };
  const [found] = parseModule(code);
  for (const { n: specifier, t: type, ss, s, se } of found) {
    if (specifier === undefined || !specifiers.has(specifier)) continue;
    if (type !== ImportType.Static) {
      add(specifier, "*"); // import(): the module as a whole
      continue;
    }
    // `import { a, b as c } from "x"`, `import * as ns from "x"`, `import d from "x"`, `export * from "x"`, `import "x"`
    const clause = code
      .slice(ss, s)
      .replace(/^\s*(import|export)/, "")
      .replace(/from\s*["']$/, "")
      .trim();
    if (!clause.replace(/["']$/, "")) {
      add(specifier, []);
      continue;
    }
    const braces = /\{([^}]*)\}/.exec(clause);
    const outside = clause
      .replace(/\{[^}]*\}/, "")
      .replace(/,/g, "")
      .trim();
    // `import d from "x"` and `import d, { a } from "x"` take the default export by name; `* as ns` the names read off ns, or the
    // whole module where ns is used otherwise (as esbuild's own tree shaking reads it); a re-export of all, the whole module.
    const namespace = /^\*\s+as\s+([\w$]+)$/.exec(outside)?.[1];
    if (namespace && clause.startsWith("*")) add(specifier, membersRead(code.slice(se), namespace));
    else if (outside.includes("*") || (!outside && !braces)) add(specifier, "*");
    else
      add(specifier, [
        ...(outside ? ["default"] : []),
        ...(braces?.[1] ?? "")
          .split(",")
          .map((part) => part.trim().split(/\s+as\s+/)[0]!)
          .filter(Boolean),
      ]);
  }
  return imports;
}

/** The names code reads off a namespace object (`ns.name`), or "*" where it uses it any other way (passes it, indexes it). */
function membersRead(code: string, namespace: string): string[] | "*" {
  const names = new Set<string>();
  for (const use of code.matchAll(new RegExp(`(?<![\\w$.])${namespace.replace(/\$/g, "\\$")}(?![\\w$])(\\s*\\.\\s*([A-Za-z_$][\\w$]*))?`, "g"))) {
    if (use[2] === undefined) return "*";
    names.add(use[2]);
  }
  return [...names];
}

/** The package a file belongs to when it is a dependency's (under a node_modules folder), or null for the project's own code. */
function dependencyOf(file: string): { name: string; version: string; wants: Record<string, string> } | null {
  if (!file.includes(`${sep}node_modules${sep}`)) return null;
  for (let dir = dirname(file); basename(dir) !== "node_modules" && dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, "utf8")) as Record<string, unknown>;
    if (typeof pkg.name !== "string") continue; // a folder's {"type": "module"}, not the package's
    const ranges = (key: string) => (pkg[key] ?? {}) as Record<string, string>;
    return {
      name: pkg.name,
      version: String(pkg.version),
      wants: { ...ranges("optionalDependencies"), ...ranges("peerDependencies"), ...ranges("dependencies") },
    };
  }
  return null;
}

/** Every managed runtime's SDK copies (asked when a build first needs them: the on-demand one is in the user's lab folder). */
const runtimeSdkTrees = () =>
  Object.values(RUNTIMES)
    .filter((runtime): runtime is ManagedRuntime => runtime.kind === "managed")
    .flatMap(runtimeSdkTreesOf);

/** Whether a version meets a range; a range semver cannot read (a tag, a URL) is taken as met. */
function meets(version: string, range: string): boolean {
  return validRange(range) === null || satisfies(version, range, { includePrerelease: true });
}

/** Where an SDK import outside the tree is served from: the tree's copy, or the importing package's own (npm gave it another version). */
export type SdkServing = { from: "tree" } | { from: "own" } | { problem: string };

/**
 * How the SDK packages a function's code and its libraries import are served from a profile's
 * SDK tree (builder/sdk-tree.mts): the tree's copy when it has the package at a version the
 * importing package accepts (one copy of each, the patched one in Optimized and Warp); the
 * importer's own copy when npm installed another version for it; and, when the project's own code
 * imports a package no tree has, a problem saying what to install. Code outside the project (an
 * app the doctor builds) gets its own copy of a package no tree has, or the runtime's.
 */
export function sdkServing(tree: string) {
  // Each import is asked about by the scan and again by each build: its answer reads manifests once.
  const answers = new Map<string, SdkServing>();
  return (specifier: string, importer: string): SdkServing => {
    const key = `${specifier}\0${importer}`;
    if (!answers.has(key)) answers.set(key, serving(specifier, importer));
    return answers.get(key)!;
  };
  function serving(specifier: string, importer: string): SdkServing {
    // A runtime's SDK copy (an app's code takes from it what it does not ship) resolves its own imports, as on Lambda.
    if (runtimeSdkTrees().some((dir) => importer.startsWith(`${dir}${sep}`))) return { from: "own" };
    const pkg = packageOf(specifier);
    const inTree = installedVersion(tree, pkg);
    const dependency = dependencyOf(importer);
    if (!dependency) {
      if (inTree) return { from: "tree" };
      const from = relative(PACKAGE_ROOT, importer);
      return from.startsWith("..") ? { from: "own" } : { problem: `${from} imports ${pkg}, which is not installed: npm install ${pkg}` };
    }
    const range = dependency.wants[pkg];
    return inTree && (range === undefined || meets(inTree, range)) ? { from: "tree" } : { from: "own" };
  }
}

/** Raw: what the runtime carries (`carries`, by package) stays an import, resolved there at run time; the rest is bundled. */
export const runtimeServing =
  (carries: (pkg: string) => boolean) =>
  (specifier: string): { from: "runtime" } | { from: "own" } =>
    carries(packageOf(specifier)) ? { from: "runtime" } : { from: "own" };

export type ServeSdk = ReturnType<typeof sdkServing>;

/** What the first pass over a function's code found: the SDK imports a profile's tree serves, and what the bundle needs. */
export interface SdkScan {
  imports: SdkImports;
  /** With `libraries`: per package module the function's own code imports from node_modules (its path, relative to the working folder), the names it uses. */
  libraries: SdkImports;
  /** One line per SDK import no tree can serve. */
  problems: string[];
  /** The SDK packages the function's own code imports that no tree serves: its own resolution's (an app's, the runtime's copy), bundled outside any chunk. */
  leftToCode: Set<string>;
  /** A dependency is CommonJS: an ES-module bundle of it needs a real `require` (createRequire). */
  hasCommonJs: boolean;
  /** The handler's own module is CommonJS (`exports.handler = ...`): an ES-module bundle of it has no named exports of its own. */
  commonJsEntry: boolean;
}

/** Whether a file is a package's (under a node_modules folder), not the function's own code. */
const inNodeModules = (file: string) => file.includes(`${sep}node_modules${sep}`);

/**
 * Bundles the function's code (nothing written) with the SDK imports that `serve` assigns to
 * the tree left external, to learn from esbuild's own resolution which SDK modules the code and
 * its libraries import, and how. With `libraries`, every other package the function's own code
 * imports is left external too (by the path it resolves to), to learn the same of them.
 */
export async function scanSdkImports(
  options: BuildOptions,
  serve: (specifier: string, importer: string) => SdkServing | { from: "runtime" },
  libraries = false,
): Promise<SdkScan> {
  const external = new Map<string, string>(); // specifier -> how it was imported (esbuild's kind)
  const libraryKinds = new Map<string, string>(); // a library module's path -> how it was imported
  const problems = new Set<string>();
  const leftToCode = new Set<string>();
  const result = await build({
    ...options,
    write: false,
    format: "esm",
    outfile: "sdk-imports.mjs",
    metafile: true,
    minify: false,
    plugins: [
      {
        name: "sdk-scan",
        setup(b) {
          b.onResolve({ filter: SDK_PACKAGE }, (args) => {
            const serving = serve(args.path, args.importer);
            if ("problem" in serving) problems.add(serving.problem);
            else if (serving.from === "own") {
              if (!inNodeModules(args.importer)) leftToCode.add(packageOf(args.path));
              return undefined;
            }
            if (external.get(args.path) !== "require-call") external.set(args.path, args.kind);
            return { path: args.path, external: true };
          });
          if (!libraries) return;
          b.onResolve({ filter: BARE }, async (args) => {
            const path = await libraryPath(b, args);
            if (path === undefined) return undefined;
            if (libraryKinds.get(path) !== "require-call") libraryKinds.set(path, args.kind);
            return { path, external: true };
          });
        },
      },
      // Then the options' own (sdkFromRuntimeCopy), for what the scan leaves to the code.
      ...(options.plugins ?? []),
    ],
  });
  const code = result.outputFiles.map((file) => file.text).join("\n");
  const imports = importedNames(code, new Set(external.keys()));
  // A CommonJS dependency's require() of the SDK stays a require in the bundle: the whole module.
  for (const [specifier, kind] of external) if (kind === "require-call") imports.set(specifier, "*");
  const libraryImports = importedNames(code, new Set(libraryKinds.keys()));
  for (const [path, kind] of libraryKinds) if (kind === "require-call" || !libraryImports.has(path)) libraryImports.set(path, "*");
  const hasCommonJs = Object.values(result.metafile.inputs).some((input) => input.format === "cjs");
  const [entry] = (options.entryPoints ?? []) as string[];
  const commonJsEntry = entry !== undefined && result.metafile.inputs[relative(options.absWorkingDir ?? process.cwd(), entry)]?.format === "cjs";
  return { imports, libraries: libraryImports, problems: [...problems], leftToCode, hasCommonJs, commonJsEntry };
}

/** The plugin data of a resolve the library scan and the chunk ask for themselves, and the namespace of a library's stand-in. */
const LIBRARY = "warp-library";
/** A bare specifier: a package's, or a builtin's. */
const BARE = /^[^./]/;

/**
 * The file a package the function's own code imports resolves to (relative to the working folder),
 * as esbuild resolves it; undefined for a builtin, what the build keeps external (a layer's
 * package), the SDK (the chunk's own business), the project's own code and a package's imports.
 */
async function libraryPath(b: PluginBuild, args: OnResolveArgs): Promise<string | undefined> {
  if (args.pluginData === LIBRARY || args.namespace !== "file" || inNodeModules(args.importer) || SDK_PACKAGE.test(args.path)) return undefined;
  const found = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: LIBRARY });
  if (found.errors.length || found.external || found.namespace !== "file" || !inNodeModules(found.path)) return undefined;
  return relative(b.initialOptions.absWorkingDir ?? process.cwd(), found.path);
}

/** What the chunk exports of a package, by its key (a specifier of the SDK, a library's path). */
const fromChunk = (key: string) => `require(${JSON.stringify(CHUNK_LOADER)}).sdkPackages[${JSON.stringify(key)}]`;

/**
 * An @aws-sdk/* package the code imports and cannot resolve itself (it ships none) comes from the
 * runtime's SDK copies (`trees`, emulation/runtime-sdk.mts), as Lambda's NODE_PATH finds it in
 * /var/runtime/node_modules: for an app's code that takes the SDK from the runtime. One the copies
 * lack yet is `install`ed into them first (the runtime carries every client). Last of the plugins:
 * what the tree serves, or the code's own copy, comes first.
 */
export function sdkFromRuntimeCopy(treesOf: () => string[], install: (pkg: string) => Promise<unknown>): Plugin {
  const AGAIN = "sdk-runtime-copy";
  // One install per package, however many files import it.
  const installs = new Map<string, Promise<unknown>>();
  return {
    name: AGAIN,
    setup(b) {
      b.onResolve({ filter: /^@aws-sdk\// }, async (args) => {
        // Only a resolve of the code's own: one a plugin asks (this one's, the tree's) is left to it, or the two would ask each other forever.
        if (args.pluginData !== undefined) return undefined;
        const own = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: AGAIN });
        if (own.errors.length === 0) return undefined;
        const fromCopies = async () => {
          // Asked only now: the runtime's copies are installed when a build first needs them.
          installRuntimeTrees();
          for (const tree of treesOf()) {
            // As imported from inside the copy: its own to resolve (sdkServing), no tree's.
            const found = await b.resolve(args.path, { kind: args.kind, resolveDir: tree, importer: join(tree, "package.json"), pluginData: AGAIN });
            if (found.errors.length === 0) return { path: found.path, external: found.external, namespace: found.namespace, sideEffects: found.sideEffects };
          }
          return undefined;
        };
        const found = await fromCopies();
        if (found) return found;
        const pkg = packageOf(args.path);
        if (!installs.has(pkg)) installs.set(pkg, install(pkg));
        await installs.get(pkg);
        return fromCopies();
      });
    },
  };
}

/** Build-time replacement of SDK files by project modules (Profile.replace). */
export function replaceFiles(tree: string, replacements: Record<string, string>): Plugin {
  const byPath = new Map(Object.entries(replacements).map(([inTree, replacement]) => [join(tree, "node_modules", inTree), ownModule(replacement)]));
  return {
    name: "replace-sdk-files",
    setup(b) {
      b.onLoad({ filter: /\.js$/ }, (args) => {
        const replacement = byPath.get(args.path);
        return replacement ? { contents: readFileSync(replacement, "utf8"), loader: "ts", resolveDir: dirname(replacement) } : undefined;
      });
    },
  };
}

/** Whether a file is part of an SDK tree (its node_modules), whose own imports stay inside it. */
const insideTree = (tree: string, file: string) => file.startsWith(join(tree, "node_modules") + sep);

/**
 * SDK packages imported from outside the tree (the function's own code, or a library it uses)
 * resolve from the profile's tree where `serve` says so; the SDK's own imports then stay inside it.
 */
export function sdkFromTree(tree: string, serve: ServeSdk): Plugin {
  return {
    name: "sdk-tree",
    setup(b) {
      b.onResolve({ filter: SDK_PACKAGE }, (args) => {
        if (args.pluginData === "sdk-tree" || insideTree(tree, args.importer)) return undefined;
        const serving = serve(args.path, args.importer);
        if (!("from" in serving) || serving.from !== "tree") return undefined;
        return b.resolve(args.path, { kind: args.kind, resolveDir: tree, pluginData: "sdk-tree" });
      });
    },
  };
}

/** Raw: the SDK packages the runtime's own copy has stay imports, resolved there at run time; any other is bundled. */
export function sdkFromRuntime(carries: (pkg: string) => boolean): Plugin {
  return {
    name: "sdk-runtime",
    setup(b) {
      const serve = runtimeServing(carries);
      b.onResolve({ filter: SDK_PACKAGE }, (args) => (serve(args.path).from === "runtime" ? { path: args.path, external: true } : undefined));
    },
  };
}

/**
 * Warp's handler bundle: every SDK import the tree serves becomes the chunk's copy of that
 * module (CommonJS, so named, namespace and default imports all read from the one object). With
 * `earlyLookups`, the first of them starts those hosts' DNS lookups before the chunk loads
 * (src/warp/early-lookup.mts).
 */
export function sdkFromChunk(tree: string, serve: ServeSdk, earlyLookups: ServiceHost[] = [], libraries: ChunkLibraries = new Map()): Plugin {
  const lookUpEarly = earlyLookups.length ? `require(${JSON.stringify(EARLY_LOOKUP)}).lookUpEarly(${JSON.stringify(earlyLookups)});\n` : "";
  return {
    name: "sdk-chunk",
    setup(b) {
      b.onResolve({ filter: SDK_PACKAGE }, (args) => {
        if (insideTree(tree, args.importer)) return undefined;
        const serving = serve(args.path, args.importer);
        return "from" in serving && serving.from === "tree" ? { path: args.path, namespace: "sdk-chunk" } : undefined;
      });
      b.onLoad({ filter: /.*/, namespace: "sdk-chunk" }, (args) => ({
        contents: `${lookUpEarly}module.exports = ${fromChunk(args.path)};`,
        loader: "js",
        resolveDir: PACKAGE_ROOT,
      }));
      if (libraries.size === 0) return;
      b.onResolve({ filter: BARE }, async (args) => {
        const key = await libraryPath(b, args);
        return key !== undefined && libraries.has(key) ? { path: key, namespace: LIBRARY } : undefined;
      });
      b.onLoad({ filter: /.*/, namespace: LIBRARY }, (args) => ({
        contents: libraryStandIn(args.path, libraries.get(args.path)!),
        loader: "js",
        resolveDir: PACKAGE_ROOT,
      }));
      b.onResolve({ filter: new RegExp(`^${LIBRARY_NAMESPACE}:`) }, (args) => ({
        path: args.path.slice(LIBRARY_NAMESPACE.length + 1),
        namespace: LIBRARY_NAMESPACE,
      }));
      b.onLoad({ filter: /.*/, namespace: LIBRARY_NAMESPACE }, (args) => ({
        contents: `module.exports = ${fromChunk(args.path)};`,
        loader: "js",
        resolveDir: PACKAGE_ROOT,
      }));
    },
  };
}

/**
 * What the handler's bundle holds in place of a library: a CommonJS library's module.exports, handed
 * over as it is (the importer's own interop reads it, as it would the library's); an ES module's
 * names, as an ES module, so that its default export is the library's, not the namespace.
 */
function libraryStandIn(key: string, library: ChunkLibrary): string {
  if (library.format === "cjs") return `module.exports = ${fromChunk(key)};`;
  const whole = JSON.stringify(`${LIBRARY_NAMESPACE}:${key}`);
  if (library.names === "*") return `export * from ${whole};\nexport { default } from ${whole};`;
  const names = [...library.names];
  return [
    `import { sdkPackages } from ${JSON.stringify(CHUNK_LOADER)};`,
    `const m = sdkPackages[${JSON.stringify(key)}];`,
    ...names.map((name, i) => `const n${i} = m[${JSON.stringify(name)}];`),
    `export { ${names.map((name, i) => `n${i} as ${name}`).join(", ")} };`,
  ].join("\n");
}

/** The namespace of an ES-module library's namespace object as the chunk hands it over (CommonJS, re-exported by the library's stand-in). */
const LIBRARY_NAMESPACE = "warp-library-namespace";

/** A library in the chunk: the names the handler's own code imports from it, and its module format. */
interface ChunkLibrary {
  names: Set<string> | "*";
  format: "esm" | "cjs";
}

/** The libraries the chunk holds, by path (relative to the working folder). */
export type ChunkLibraries = Map<string, ChunkLibrary>;

/** The libraries of a scan, each with its module format as the file reads (import/export or import.meta: an ES module). */
export function chunkLibraries(libraries: SdkImports, workingDir: string): ChunkLibraries {
  return new Map(
    [...libraries].map(([path, names]) => [path, { names, format: parseModule(readFileSync(join(workingDir, path), "utf8"))[3] ? "esm" : "cjs" }]),
  );
}

/**
 * The endpoint host of each SDK client package the handler imports, as that client's own
 * endpoint rules give it for a region (left as `{region}`), and the variable that overrides it
 * (AWS_ENDPOINT_URL_<serviceId>). Read by constructing each client from the tree: no request is sent.
 */
export function serviceHosts(imports: SdkImports, tree: string): ServiceHost[] {
  const requireFromTree = createRequire(join(tree, "node_modules") + sep);
  const sampleRegion = "us-east-1";
  const hosts: ServiceHost[] = [];
  for (const pkg of new Set([...imports.keys()].map(packageOf))) {
    if (!pkg.startsWith("@aws-sdk/client-")) continue;
    const exports = Object.values(requireFromTree(pkg) as Record<string, unknown>);
    const Client = exports.find((value): value is ClientClass => typeof value === "function" && value.name.endsWith("Client") && value.name !== "Client");
    if (!Client) continue;
    const client = new Client({ region: sampleRegion, credentials: { accessKeyId: "build", secretAccessKey: "build" } });
    try {
      const { url } = client.config.endpointProvider({ Region: sampleRegion, UseFIPS: false, UseDualStack: false }, {});
      hosts.push({ endpointVariable: client.config.serviceId.toUpperCase().replace(/ /g, "_"), host: url.hostname.replace(sampleRegion, "{region}") });
    } finally {
      client.destroy();
    }
  }
  return hosts;
}

type ClientClass = new (config: object) => { config: { serviceId: string; endpointProvider(params: object, context: object): { url: URL } }; destroy(): void };

/**
 * The chunk's entry: exports what the handler imports of the SDK by specifier, and of each
 * library by its path (sdkPackages). An ES module's names are read off its namespace (so esbuild
 * drops what nothing reads, as in the handler's own bundle), evaluated when the chunk loads; a
 * CommonJS library, or a module the handler takes whole, is required where the handler first
 * imports it.
 */
export function chunkEntry(imports: SdkImports, libraries: ChunkLibraries = new Map()): string {
  const lines: string[] = [];
  const exported: string[] = [];
  const modules: [string, string, Set<string> | "*"][] = [
    ...[...imports].map(([specifier, names]): [string, string, Set<string> | "*"] => [specifier, specifier, names]),
    ...[...libraries].map(([path, { names }]): [string, string, Set<string> | "*"] => [path, path.startsWith("..") ? path : `./${path}`, names]),
  ];
  modules.forEach(([key, from, names], i) => {
    if (libraries.has(key) && lazyLibrary(libraries.get(key)!)) {
      exported.push(`get ${JSON.stringify(key)}() { return require(${JSON.stringify(from)}); }`);
      return;
    }
    lines.push(`import * as m${i} from ${JSON.stringify(from)};`);
    exported.push(
      names === "*"
        ? `${JSON.stringify(key)}: m${i}`
        : `${JSON.stringify(key)}: { ${[...names].map((name) => `${JSON.stringify(name)}: m${i}.${name}`).join(", ")} }`,
    );
  });
  return `${lines.join("\n")}\nexport const sdkPackages = { ${exported.join(", ")} };\n`;
}

/** A library the chunk requires when the handler first asks for it: CommonJS (nothing to drop), or taken whole. */
const lazyLibrary = ({ format, names }: ChunkLibrary) => format === "cjs" || names === "*";
