// The managed runtimes' stand-ins for /var/runtime (emulation/runtime/<runtime>/): each one's runtime
// interface client and copy of the AWS SDK v3. Lambda's Node.js runtimes carry every @aws-sdk/*
// package of their SDK release; a stand-in holds the ones the project names (installed by setup,
// pinned by its lockfile) and the clients and libraries a function imports beyond those, installed
// on first use at the release the runtime carries (emulation/runtime/sdk-release.mjs) into
// the user's lab folder (installedOnDemandDirOf), and kept.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { labHomeDir, NODE22, PACKAGE_ROOT, toolPath } from "../core/paths.mts";
import { execOwned } from "../core/processes.mts";
import { type ManagedRuntime, RUNTIMES } from "../core/runtimes.mts";
import { installPart } from "../core/tools.mts";
import { fitsRuntime, runtimeCandidates } from "./runtime/sdk-release.mjs";

/**
 * A managed runtime's stand-in for /var/runtime: its runtime client (bootstrap.mjs starts it) and the
 * SDK copy the project names (node_modules), installed when the lab first starts one (runtimeEntryOf).
 */
export const runtimeDirOf = (runtime: Pick<ManagedRuntime, "standIn">) => toolPath(join("emulation/runtime", runtime.standIn));

/** What the lab's node runs for a managed runtime, as Lambda's bootstrap runs /var/runtime/index.mjs. */
export function runtimeEntryOf(runtime: Pick<ManagedRuntime, "standIn">): string {
  installRuntimeTrees();
  return join(runtimeDirOf(runtime), "bootstrap.mjs");
}

/** Installs the runtimes' stand-ins (scripts/setup.sh's runtime-trees) unless they are. */
export function installRuntimeTrees(): void {
  if (!existsSync(join(runtimeDirOf(RUNTIMES.node22), "node_modules/.warpstart-stamp"))) installPart("runtime-trees");
}

/** Where the packages a runtime carries beyond the project's are installed on first use: the user's, kept across runs (core/paths.mts labHomeDir). */
export const installedOnDemandDirOf = (runtime: Pick<ManagedRuntime, "standIn">) => join(labHomeDir(), "runtime-sdk", runtime.standIn);

/** The runtime's SDK copies, the pinned one first: the node_modules folders a function's imports resolve in. */
export const runtimeSdkTreesOf = (runtime: Pick<ManagedRuntime, "standIn">) => [runtimeDirOf(runtime), installedOnDemandDirOf(runtime)];

type RuntimeConfig = { sdkVersion: string; notInRuntime?: string[] };
// Read once per runtime: a Raw build asks of every package it imports.
const configs = new Map<string, RuntimeConfig>();

/** The SDK release a runtime carries, and what it carries of it (its stand-in's package.json config). */
function runtimeConfig(runtime: Pick<ManagedRuntime, "standIn">): RuntimeConfig {
  if (!configs.has(runtime.standIn))
    configs.set(
      runtime.standIn,
      (JSON.parse(readFileSync(join(PACKAGE_ROOT, "emulation/runtime", runtime.standIn, "package.json"), "utf8")) as { config: RuntimeConfig }).config,
    );
  return configs.get(runtime.standIn)!;
}

/**
 * Whether a runtime carries a package, for a function to import unbundled (Raw): every @aws-sdk/*
 * package of its SDK but those it had dropped (config.notInRuntime), installed on first use if its
 * stand-in lacks it; any other package only if the stand-in has it.
 */
export function runtimeCarries(runtime: Pick<ManagedRuntime, "standIn">, pkg: string): boolean {
  if (runtimeSdkTreesOf(runtime).some((tree) => has(tree, pkg))) return true;
  return pkg.startsWith("@aws-sdk/") && !(runtimeConfig(runtime).notInRuntime ?? []).includes(pkg);
}

/** A package named in an import, an import(), a require() or a resolve(): its name, without a subpath. */
const NAMED_PACKAGE = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\b(?:require|resolve)\s*\(\s*)["']((?:@[\w.-]+\/)?[\w.-]+)/g;
/** What a function imports of the SDK by name: a client or a library (lib-dynamodb, util-dynamodb, s3-request-presigner...); their own dependencies come with them. */
const IMPORTED_SDK = /^@aws-sdk\/(client-|lib-|util-dynamodb$|s3-request-presigner$|cloudfront-signer$|credential-providers$)/;

/** The packages an artifact names anywhere in its code (import, import(), require, resolve), each once. */
function packagesNamedBy(codeDir: string): Set<string> {
  const names = new Set<string>();
  for (const file of readdirSync(codeDir, { recursive: true, encoding: "utf8" })) {
    if (!/\.[cm]?js$/.test(file) || !statSync(join(codeDir, file)).isFile()) continue;
    for (const [, name] of readFileSync(join(codeDir, file), "utf8").matchAll(NAMED_PACKAGE)) names.add(name!);
  }
  return names;
}

const has = (tree: string, name: string) => existsSync(join(tree, "node_modules", name, "package.json"));

/** The SDK clients and libraries an artifact imports that neither it nor the runtime's copies have yet. */
export function missingRuntimeSdk(codeDir: string, runtime: Pick<ManagedRuntime, "standIn">): string[] {
  return [...packagesNamedBy(codeDir)].filter(
    (name) => IMPORTED_SDK.test(name) && !has(codeDir, name) && !runtimeSdkTreesOf(runtime).some((tree) => has(tree, name)),
  );
}

/** The project's npm, on its Node: the one that installs everything else. Its exit status, what it printed (its errors too: they are the message). */
async function npm(args: string[], cwd?: string): Promise<{ status: number; stdout: string; stderr: string }> {
  const cli = toolPath("tools/node22/node_modules/npm/bin/npm-cli.js");
  if (!existsSync(cli)) installPart("node22");
  try {
    // This process's environment as it is now (npm_config_* included), which a spawn without `env` may not see.
    return { status: 0, ...(await execOwned(NODE22, [cli, ...args], { cwd, env: process.env, maxBuffer: 64 * 1024 * 1024 })) };
  } catch (error) {
    const { code, stdout = "", stderr = "" } = error as { code?: number; stdout?: string; stderr?: string };
    return { status: typeof code === "number" ? code : 1, stdout, stderr };
  }
}

/** npm's own error line of what it printed, for a one-line message. */
const npmError = (stderr: string) =>
  stderr
    .split("\n")
    .find((line) => /^npm error (?!(code|syscall|errno) )/.test(line))
    ?.replace(/^npm error /, "") ?? "no output";

/**
 * Installs what a runtime carries of `packages` into its on-demand copy, once: each at the release the
 * runtime carries, or not at all when it carries none (a function importing it then fails as on
 * Lambda). Says on `say` what it installs, where and why, and what npm could not do: the lab goes on,
 * and only the functions that import them fail their INIT. Returns the packages the runtime does not carry.
 */
export async function installRuntimeSdk(
  runtime: Pick<ManagedRuntime, "standIn" | "lambdaRuntime">,
  packages: string[],
  say: (line: string) => void,
): Promise<string[]> {
  const config = runtimeConfig(runtime);
  const releases: string[] = [];
  const notCarried: string[] = [];
  const unreachable = (what: string, stderr: string) =>
    say(`npm could not ${what} (${npmError(stderr)}): a function that imports it fails its INIT here, not on Lambda; rerun once npm's registry is reachable`);
  for (const name of packages) {
    // One try: a registry out of reach is said at once rather than after npm's minute of retries.
    const versions = await npm(["view", name, "versions", "--json", "--fetch-retries=0"]);
    if (versions.status !== 0) {
      unreachable(`look up ${name}`, versions.stderr);
      continue;
    }
    const known = [JSON.parse(versions.stdout || "[]")].flat() as string[];
    let release: string | null = null;
    for (const candidate of runtimeCandidates(name, known, config)) {
      const view = await npm(["view", `${name}@${candidate}`, "peerDependencies", "--json"]);
      if (fitsRuntime(view.status === 0 && view.stdout.trim() ? (JSON.parse(view.stdout) as Record<string, string>) : {}, config)) {
        release = candidate;
        break;
      }
    }
    if (release) releases.push(`${name}@${release}`);
    else notCarried.push(name);
  }
  if (releases.length === 0) return notCarried;
  const dir = installedOnDemandDirOf(runtime);
  mkdirSync(dir, { recursive: true });
  const manifest = join(dir, "package.json");
  if (!existsSync(manifest)) writeFileSync(manifest, `${JSON.stringify({ name: `warpstart-runtime-sdk-${runtime.standIn}`, private: true }, null, 2)}\n`);
  say(
    `${runtime.lambdaRuntime} carries ${releases.join(", ")} (its SDK ${config.sdkVersion}), which the stand-in for its runtime lacks: installing into ${dir} (once)`,
  );
  const install = await npm(["install", "--save-exact", "--no-audit", "--no-fund", "--loglevel=error", ...releases], dir);
  if (install.status !== 0) unreachable(`install ${releases.join(", ")}`, install.stderr);
  return notCarried;
}

type LockedPackages = Record<string, { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }>;

/** A tree's lockfile as it is now (its modification time: an on-demand install changes it), or "none". */
const lockfileStamp = (tree: string) => {
  const lockfile = join(tree, "package-lock.json");
  return existsSync(lockfile) ? String(statSync(lockfile).mtimeMs) : "none";
};
// Read once per process and lockfile: every environment a lab starts asks.
const locks = new Map<string, LockedPackages>();
const sdkReads = new Map<string, readonly string[]>();

/** A tree's locked packages (its package-lock.json), or null when it has none. */
function lockedPackages(tree: string): LockedPackages | null {
  const key = `${tree}\0${lockfileStamp(tree)}`;
  if (!locks.has(key)) {
    const lockfile = join(tree, "package-lock.json");
    if (!existsSync(lockfile)) return null;
    locks.set(key, (JSON.parse(readFileSync(lockfile, "utf8")) as { packages: LockedPackages }).packages);
  }
  return locks.get(key)!;
}

/**
 * What of a runtime's SDK copies a function's artifact can load, to be read from storage at each
 * cold start: the packages its code names that a copy has, and what they depend on, by the copy's
 * lockfile. Of a package that ships dist-cjs (the SDK's: all Lambda's copy keeps of them, and what
 * Node loads) its package.json and that folder, of any other the whole package. Nothing for an
 * artifact that bundles its SDK. A cold start pays for what it loads, not for every file the runtime ships.
 */
export function runtimeSdkFilesOf(codeDir: string, runtime: Pick<ManagedRuntime, "standIn">): readonly string[] {
  const key = `${codeDir}\0${runtime.standIn}\0${runtimeSdkTreesOf(runtime).map(lockfileStamp).join("\0")}`;
  const known = sdkReads.get(key);
  if (known) return known;
  const named = packagesNamedBy(codeDir);
  const files = runtimeSdkTreesOf(runtime).flatMap((tree) => {
    const locked = lockedPackages(tree);
    if (!locked) return [];
    // npm's layout: a dependency is in the nearest node_modules up from the package that needs it.
    const resolve = (from: string, name: string): string | null => {
      for (let base = from; ; base = base.slice(0, Math.max(0, base.lastIndexOf("/node_modules/")))) {
        const folder = `${base ? `${base}/` : ""}node_modules/${name}`;
        if (locked[folder]) return folder;
        if (!base) return null;
      }
    };
    const folders = new Set<string>();
    const visit = (folder: string | null) => {
      if (folder === null || folders.has(folder)) return;
      folders.add(folder);
      const entry = locked[folder]!;
      for (const dependency of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) visit(resolve(folder, dependency));
    };
    for (const name of named) visit(resolve("", name));
    return [...folders].flatMap((folder) => {
      const dir = join(tree, folder);
      return existsSync(join(dir, "dist-cjs")) ? [join(dir, "package.json"), join(dir, "dist-cjs")] : [dir];
    });
  });
  sdkReads.set(key, files);
  return files;
}
