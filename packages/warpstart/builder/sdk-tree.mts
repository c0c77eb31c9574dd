// The SDK trees a build bundles from, made from the SDK the app installs, at the versions its
// lockfile resolved: Bundled bundles the app's node_modules as they are; Optimized and Warp a copy
// of its SDK (every @aws-sdk/* and @smithy/* package at the top of node_modules, with what they
// depend on) with patches/*.patch applied. A patch that does not apply to the version the app has
// is left out of the copy and named: the build goes on without it. An app that installs no SDK
// (it took the runtime's) gets warpstart's own tree, published/.
import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { applyPatch, parsePatch, type StructuredPatch } from "diff";
import { foldersUp, labHomeDir, PACKAGE_ROOT, toolPath } from "../core/paths.mts";
import { removeTree } from "../core/processes.mts";

/** warpstart's own SDK tree: what an app that installs no SDK of its own gets bundled. */
export const WARPSTART_TREE = toolPath("published");
const PATCHES_DIR = join(PACKAGE_ROOT, "patches");
const TOP_LEVEL_SDK = ["@aws-sdk", "@smithy"];

/** One patch of patches/: `@smithy+core+3.41.0+001+lazy-zlib.patch` patches @smithy/core, made on 3.41.0. */
export interface SdkPatch {
  file: string;
  /** What it is called in notes and the bench (lazy-zlib). */
  name: string;
  pkg: string;
  madeFor: string;
  /** Each file's diff, with its path inside the package. */
  diffs: { path: string; diff: StructuredPatch }[];
}

let patches: SdkPatch[] | undefined;
/** The patches, in the order they apply (their file names'). */
export function sdkPatches(): SdkPatch[] {
  patches ??= readdirSync(PATCHES_DIR)
    .filter((file) => file.endsWith(".patch"))
    .sort()
    .map((file) => {
      const [scope, name, madeFor] = file.split("+");
      const pkg = `${scope}/${name}`;
      const diffs = parsePatch(readFileSync(join(PATCHES_DIR, file), "utf8")).map((diff) => ({
        path: diff.newFileName!.replace(/^b\//, "").slice(`node_modules/${pkg}/`.length),
        diff,
      }));
      return { file, name: /\+\d{3}\+(.+)\.patch$/.exec(file)![1]!, pkg, madeFor: madeFor!, diffs };
    });
  return patches;
}

/**
 * The files of a package once a patch is applied on top of `current` (the files earlier patches
 * changed), or null when one of its hunks does not fit the installed version (or a file it changes
 * is not there).
 */
export function patchedFiles(packageDir: string, patch: SdkPatch, current: Map<string, string> = new Map()): Map<string, string> | null {
  const next = new Map(current);
  for (const { path, diff } of patch.diffs) {
    const file = join(packageDir, path);
    const before = next.get(file) ?? (existsSync(file) ? readFileSync(file, "utf8") : null);
    const after = before === null ? false : applyPatch(before, diff);
    if (after === false) return null;
    next.set(file, after);
  }
  return next;
}

/** A patch the tree was made without: it does not apply to the version of its package the app installs. */
interface SkippedPatch {
  patch: string;
  pkg: string;
  version: string;
  madeFor: string;
}

/** A tree a profile bundles from: the folder whose node_modules holds the SDK, the app's (or warpstart's) it was made from, and the patches left out of it. */
export interface SdkTree {
  dir: string;
  from: string;
  skipped: SkippedPatch[];
}

/**
 * The folder whose node_modules holds the SDK a function's code resolves (the nearest one up from
 * its source with @aws-sdk/* installed, a linked node_modules followed), or warpstart's own tree
 * when the app installs none.
 */
export function publishedTree(source: string): string {
  for (const dir of foldersUp(dirname(source))) {
    if (existsSync(join(dir, "node_modules/@aws-sdk"))) return dirname(realpathSync(join(dir, "node_modules")));
  }
  return WARPSTART_TREE;
}

/** The version of an SDK package warpstart's own tree pins (its manifest: the tree itself is installed when a build first bundles from it), or null. */
export function warpstartTreeVersion(name: string): string | null {
  const { dependencies } = JSON.parse(readFileSync(join(PACKAGE_ROOT, "published/package.json"), "utf8")) as { dependencies: Record<string, string> };
  return dependencies[name] ?? null;
}

const versionOf = (packageDir: string) => (JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version: string }).version;

/** What a package depends on (the names), from its manifest. */
function dependenciesOf(packageDir: string): string[] {
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>;
  return Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.peerDependencies });
}

/** The packages a package folder holds in its own node_modules (npm nests a version the top cannot take there), at any depth. */
function nestedPackages(packageDir: string): string[] {
  const nested = join(packageDir, "node_modules");
  if (!existsSync(nested)) return [];
  return readdirSync(nested).flatMap((entry) => {
    const dirs = entry.startsWith("@") ? readdirSync(join(nested, entry)).map((name) => join(nested, entry, name)) : [join(nested, entry)];
    return dirs.filter((dir) => existsSync(join(dir, "package.json"))).flatMap((dir) => [dir, ...nestedPackages(dir)]);
  });
}

/** The SDK's packages at the top of a node_modules and every package they depend on there, by name. */
export function sdkClosure(nodeModules: string): string[] {
  const queue = TOP_LEVEL_SDK.filter((scope) => existsSync(join(nodeModules, scope))).flatMap((scope) =>
    readdirSync(join(nodeModules, scope)).map((name) => `${scope}/${name}`),
  );
  const found = new Set<string>();
  while (queue.length) {
    const name = queue.pop()!;
    const dir = join(nodeModules, name);
    if (found.has(name) || !existsSync(join(dir, "package.json"))) continue;
    found.add(name);
    for (const packageDir of [dir, ...nestedPackages(dir)]) queue.push(...dependenciesOf(packageDir));
  }
  return [...found].sort();
}

/** The record a made tree keeps of itself: the patches it was made without. */
const RECORD = "warpstart-sdk-tree.json";
/** A tree no build has used for this long is removed when another is made. */
const UNUSED_FOR = 7 * 24 * 3600 * 1000;

/**
 * The tree Optimized and Warp bundle: a copy of `published`'s SDK in the lab's home with the
 * patches applied, made once per set of installed versions (and of patches, and of `leaveOut`:
 * patch names a measurement takes out) and used by every build after.
 */
export function patchedTree(published: string, leaveOut: string[] = []): SdkTree {
  const nodeModules = join(published, "node_modules");
  const closure = sdkClosure(nodeModules);
  // Every package folder the copy will hold, top and nested, relative to node_modules.
  const packages = closure.flatMap((name) => [join(nodeModules, name), ...nestedPackages(join(nodeModules, name))]).map((dir) => relative(nodeModules, dir));
  const applying = sdkPatches().filter((patch) => !leaveOut.includes(patch.name));
  const identity = [
    ...packages.map((path) => `${path}@${versionOf(join(nodeModules, path))}`),
    ...applying.map(
      (patch) =>
        `${patch.file} ${createHash("sha256")
          .update(readFileSync(join(PATCHES_DIR, patch.file)))
          .digest("hex")}`,
    ),
  ];
  const trees = join(labHomeDir(), "sdk-trees");
  mkdirSync(trees, { recursive: true });
  const dir = join(trees, createHash("sha256").update(identity.join("\n")).digest("hex").slice(0, 16));
  const record = join(dir, RECORD);
  if (!existsSync(record)) makeTree(trees, dir, nodeModules, closure, packages, applying);
  const now = new Date();
  utimesSync(record, now, now);
  return { dir, from: published, skipped: (JSON.parse(readFileSync(record, "utf8")) as { skipped: SkippedPatch[] }).skipped };
}

/**
 * Copies the closure into a folder of its own, applies the patches there to every copy of the
 * package each patches (at the top and nested), then moves it into place (a build beside it may
 * be making the same tree).
 */
function makeTree(trees: string, dir: string, nodeModules: string, closure: string[], packages: string[], applying: SdkPatch[]): void {
  const making = `${dir}.${process.pid}-${randomBytes(4).toString("hex")}`;
  for (const name of closure) cpSync(join(nodeModules, name), join(making, "node_modules", name), { recursive: true, dereference: true });
  const skipped: SkippedPatch[] = [];
  const byCopy = new Map<string, Map<string, string>>();
  for (const patch of applying) {
    const copies = packages.filter((path) => path === patch.pkg || path.endsWith(`/node_modules/${patch.pkg}`));
    for (const copy of copies.map((path) => join(making, "node_modules", path))) {
      const files = patchedFiles(copy, patch, byCopy.get(copy));
      if (files) byCopy.set(copy, files);
      else skipped.push({ patch: patch.name, pkg: patch.pkg, version: versionOf(copy), madeFor: patch.madeFor });
    }
  }
  for (const files of byCopy.values()) for (const [file, text] of files) writeFileSync(file, text);
  writeFileSync(join(making, "package.json"), "{}\n");
  writeFileSync(join(making, RECORD), `${JSON.stringify({ from: nodeModules, skipped }, null, 2)}\n`);
  try {
    renameSync(making, dir);
  } catch {
    removeTree(making); // another build made it first
  }
  for (const other of readdirSync(trees)) {
    const kept = join(trees, other, RECORD);
    if (existsSync(kept) && Date.now() - statSync(kept).mtimeMs > UNUSED_FOR) removeTree(join(trees, other));
  }
}

/** The version of an installed package in a tree, or null when it is not installed there. */
export function installedVersion(tree: string, pkg: string): string | null {
  const manifest = join(tree, "node_modules", pkg, "package.json");
  return existsSync(manifest) ? (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version : null;
}
