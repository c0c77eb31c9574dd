// The managed runtimes' stand-ins for /var/runtime (emulation/runtime/<runtime>/): each one's runtime
// interface client and copy of the AWS SDK v3. Lambda's Node.js runtimes carry every @aws-sdk/*
// package of their SDK release; a stand-in holds the ones the project names (installed by setup,
// pinned by its lockfile) and the clients and libraries a function imports beyond those, installed
// on first use at the release the runtime carries (emulation/runtime/sdk-release.mjs) into
// .lab/runtime-sdk/<runtime>/, and kept.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { PROJECT_ROOT, STATE_DIR } from "../core/paths.mts";
import type { ManagedRuntime } from "../core/runtimes.mts";
import { runtimeRelease } from "./runtime/sdk-release.mjs";

const RUNTIMES_DIR = join(import.meta.dirname, "runtime");

/** A managed runtime's stand-in for /var/runtime: its runtime client (bootstrap.mjs starts it) and the SDK copy the project names (node_modules). */
export const runtimeDirOf = (runtime: Pick<ManagedRuntime, "name">) => join(RUNTIMES_DIR, runtime.name);

/** What the lab's node runs for a managed runtime, as Lambda's bootstrap runs /var/runtime/index.mjs. */
export const runtimeEntryOf = (runtime: Pick<ManagedRuntime, "name">) => join(runtimeDirOf(runtime), "bootstrap.mjs");

/** Where the packages a runtime carries beyond the project's are installed on first use. */
export const installedOnDemandDirOf = (runtime: Pick<ManagedRuntime, "name">) => join(STATE_DIR, "runtime-sdk", runtime.name);

/** The runtime's SDK copies, the pinned one first: the node_modules folders a function's imports resolve in. */
export const runtimeSdkTreesOf = (runtime: Pick<ManagedRuntime, "name">) => [runtimeDirOf(runtime), installedOnDemandDirOf(runtime)];

/** The SDK release a runtime carries, and what it carries of it (its stand-in's package.json config). */
function runtimeConfig(runtime: Pick<ManagedRuntime, "name">): { sdkVersion: string; notInRuntime?: string[] } {
  return (JSON.parse(readFileSync(join(runtimeDirOf(runtime), "package.json"), "utf8")) as { config: { sdkVersion: string } }).config;
}

/**
 * Whether a runtime carries a package, for a function to import unbundled (Raw): every @aws-sdk/*
 * package of its SDK but those it had dropped (config.notInRuntime), installed on first use if its
 * stand-in lacks it; any other package only if the stand-in has it.
 */
export function runtimeCarries(runtime: Pick<ManagedRuntime, "name">, pkg: string): boolean {
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
export function missingRuntimeSdk(codeDir: string, runtime: Pick<ManagedRuntime, "name">): string[] {
  return [...packagesNamedBy(codeDir)].filter(
    (name) => IMPORTED_SDK.test(name) && !has(codeDir, name) && !runtimeSdkTreesOf(runtime).some((tree) => has(tree, name)),
  );
}

/** The project's npm, on its Node: the one that installs everything else. */
function npm(args: string[], options: { cwd?: string; capture?: boolean } = {}) {
  const node = join(PROJECT_ROOT, "tools/node22/node_modules/.bin/node");
  const cli = join(PROJECT_ROOT, "tools/node22/node_modules/npm/bin/npm-cli.js");
  return spawnSync(node, [cli, ...args], { cwd: options.cwd, encoding: "utf8", stdio: ["ignore", options.capture ? "pipe" : 2, 2] });
}

/**
 * Installs what a runtime carries of `packages` into its on-demand copy, once: each at the release the
 * runtime carries, or not at all when it carries none (a function importing it then fails as on
 * Lambda). Says on `say` what it installs, where and why; returns the packages the runtime does not carry.
 */
export function installRuntimeSdk(runtime: Pick<ManagedRuntime, "name" | "lambdaRuntime">, packages: string[], say: (line: string) => void): string[] {
  const config = runtimeConfig(runtime);
  const releases: string[] = [];
  const notCarried: string[] = [];
  for (const name of packages) {
    const versions = npm(["view", name, "versions", "--json"], { capture: true });
    const known = versions.status === 0 ? [JSON.parse(versions.stdout || "[]")].flat() : [];
    const peers = (version: string) => {
      const view = npm(["view", `${name}@${version}`, "peerDependencies", "--json"], { capture: true });
      return view.status === 0 && view.stdout.trim() ? (JSON.parse(view.stdout) as Record<string, string>) : {};
    };
    const release = runtimeRelease(name, known, config, peers);
    if (release) releases.push(`${name}@${release}`);
    else notCarried.push(name);
  }
  if (releases.length === 0) return notCarried;
  const dir = installedOnDemandDirOf(runtime);
  mkdirSync(dir, { recursive: true });
  const manifest = join(dir, "package.json");
  if (!existsSync(manifest)) writeFileSync(manifest, `${JSON.stringify({ name: `warpstart-runtime-sdk-${runtime.name}`, private: true }, null, 2)}\n`);
  say(
    `${runtime.lambdaRuntime} carries ${releases.join(", ")} (its SDK ${config.sdkVersion}), which the stand-in for its runtime lacks: installing into ${relative(process.cwd(), dir)} (once)`,
  );
  const install = npm(["install", "--save-exact", "--no-audit", "--no-fund", "--loglevel=error", ...releases], { cwd: dir });
  if (install.status !== 0) throw new Error(`npm could not install ${releases.join(", ")} into ${dir} (exit ${install.status}): see above`);
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
export function runtimeSdkFilesOf(codeDir: string, runtime: Pick<ManagedRuntime, "name">): readonly string[] {
  const key = `${codeDir}\0${runtime.name}\0${runtimeSdkTreesOf(runtime).map(lockfileStamp).join("\0")}`;
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
