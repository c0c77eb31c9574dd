// Builds kept by what went into them, for builds that repeat with the same inputs: a user's next
// `sam build` (SAM runs every makefile build again, whatever --cached says), and the test suite,
// which builds the same function in the same profile from many files. On unless
// WARPSTART_BUILD_CACHE is "off"; that variable may also name the folder. A build's key has two parts: its recipe (the builder's own
// code and the lockfiles of every tree it bundles or runs, the profile, the function as the template
// declares it, the template's resources, the runtime it deploys to) and its ingredients (the
// content of every file esbuild read, from the build's metafile). Warp's code cache is V8's output
// for those inputs on the pinned Node, so it is kept with the artifact. One entry per recipe: a
// build with new ingredients replaces the last one; an entry no build has used for a week goes.
import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { Metafile } from "esbuild";
import { labHomeDir, PACKAGE_ROOT } from "../core/paths.mts";
import { removeTree } from "../core/processes.mts";
import { labOverlayOf } from "../emulation/function-environment.mts";

/** The environment variable that names the folder builds are kept in, or turns the cache off ("off"). */
export const BUILD_CACHE_VARIABLE = "WARPSTART_BUILD_CACHE";

/** Where builds are kept: the variable's folder, else the lab's home (outside the project: a build never sees it); null when off. */
function buildCacheDir(): string | null {
  const named = process.env[BUILD_CACHE_VARIABLE];
  if (named === "off") return null;
  return named ? resolve(named) : join(labHomeDir(), "build-cache");
}

/** Whether builds are kept and reused in this process. */
export const buildCacheOn = () => buildCacheDir() !== null;

/** What the builder's output depends on besides the function's own files: its code, what it builds in, the trees and Nodes it uses. */
const BUILDER_INPUTS = ["builder", "core", "emulation", "src"];
const BUILDER_FILES = [
  "warpstart.mk",
  "warpstart.mjs",
  "package.json",
  "published/package-lock.json",
  "tools/lambda-arm64/package-lock.json",
  "tools/runtimes/package-lock.json",
];
/** The folders whose lockfiles pin what a build runs: each runtime's stand-in (emulation/runtime/) and Node (tools/node<major>, tools/node<major>-arm64). */
const PINNED_TREES: [string, RegExp][] = [
  ["emulation/runtime", /^node\d+$/],
  ["tools", /^node\d+(-arm64)?$/],
];
const CODE = /\.(mts|mjs|cjs|cts|ts|js|json|patch|py)$|^warp-exec$/;

export const digest = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
export const fileDigest = (file: string) => (existsSync(file) ? digest(readFileSync(file)) : "missing");

let builderVersion: string | undefined;

/** A digest of the builder's code and the lockfiles it builds from, computed once per process. */
function builderDigest(): string {
  if (builderVersion) return builderVersion;
  const files: string[] = [...BUILDER_FILES];
  for (const [dir, tree] of PINNED_TREES)
    for (const name of readdirSync(join(PACKAGE_ROOT, dir)).filter((entry) => tree.test(entry))) files.push(`${dir}/${name}/package-lock.json`);
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(PACKAGE_ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules") walk(path);
      } else if (CODE.test(entry.name)) files.push(path);
    }
  };
  for (const dir of BUILDER_INPUTS) walk(dir);
  for (const patch of readdirSync(join(PACKAGE_ROOT, "patches"))) if (patch.endsWith(".patch")) files.push(`patches/${patch}`);
  builderVersion = digest(
    files
      .sort()
      .map((file) => `${file} ${fileDigest(join(PACKAGE_ROOT, file))}`)
      .join("\n"),
  );
  return builderVersion;
}

/** Everything but the function's own files that decides a build's output. */
export interface Recipe {
  profileName: string;
  /** The function as the template declares it (handler, build properties, memory, architecture, environment...). */
  fn: unknown;
  /** The template's resources: Warp's INIT runs against them, Define embeds their names. */
  resources: unknown;
  /** The runtime it deploys to (a custom runtime gets startup caches). */
  deployedRuntime: string;
  /** What its layers provide, left out of its bundle (builder/layer-packages.mts). */
  layerPackages: string[];
  /** Files the build reads besides what esbuild bundles (the event of Warp's first invoke), by content. */
  alsoReads: string[];
}

/** The files esbuild read, relative to the project as its metafile names them: not Warp's generated <sdk-chunk> entry nor plugin namespaces (sdk-chunk:...). */
export const filesRead = (metafile: Pick<Metafile, "inputs">) =>
  Object.keys(metafile.inputs).filter((input) => !input.startsWith("<") && !/^[\w-]+:/.test(input));

/** The files a build read, each with its digest, from its metafile. */
export function ingredientsOf(metafile: Metafile): Record<string, string> {
  return Object.fromEntries(
    filesRead(metafile)
      .sort()
      .map((input) => [input, fileDigest(resolve(PACKAGE_ROOT, input))]),
  );
}

/** Whether every file a build read is as it was. */
export const unchanged = (ingredients: Record<string, string>) =>
  Object.entries(ingredients).every(([input, was]) => fileDigest(resolve(PACKAGE_ROOT, input)) === was);

/** The result a cached build gives back, with its paths relative to the artifact (they move with it). */
interface Entry<Result> {
  ingredients: Record<string, string>;
  /** The handler module, relative to the artifact. */
  outfile: string;
  result: Result;
}

/** Where a recipe's entry is kept; null when the cache is off. */
function entryDir(recipe: Recipe): string | null {
  const root = buildCacheDir();
  if (!root) return null;
  const alsoReads = recipe.alsoReads.map((file) => fileDigest(file));
  // Paths inside the project count from its root: a copy of the project (a test's) makes the same builds.
  const recipeText = JSON.stringify({ builder: builderDigest(), arch: process.arch, ...recipe, alsoReads }).replaceAll(PACKAGE_ROOT, "<project>");
  return join(root, digest(recipeText));
}

/** What a folder of the entry holds: the artifact, the lab's overlay beside it, its metafile. */
const parts = (dir: string) => ({
  artifact: join(dir, "artifact"),
  overlay: join(dir, "overlay"),
  metafile: join(dir, "meta.json"),
  entry: join(dir, "entry.json"),
});

/**
 * The kept build for `recipe`, copied into outdir (its overlay and metafile beside it, as a build
 * writes them), when every file it read is as it was; null otherwise (or when the cache is off).
 */
export function restoreBuild<Result>(recipe: Recipe, outdir: string): { outfile: string; metafile: string; result: Result } | null {
  const dir = entryDir(recipe);
  if (!dir || !existsSync(join(dir, "entry.json"))) return null;
  const kept = parts(dir);
  let entry: Entry<Result>;
  try {
    entry = JSON.parse(readFileSync(kept.entry, "utf8")) as Entry<Result>;
  } catch {
    return null;
  }
  if (!unchanged(entry.ingredients)) return null;
  removeTree(outdir);
  removeTree(labOverlayOf(outdir));
  cpSync(kept.artifact, outdir, { recursive: true, verbatimSymlinks: true });
  if (existsSync(kept.overlay)) cpSync(kept.overlay, labOverlayOf(outdir), { recursive: true });
  const metafile = `${outdir.replace(/\/+$/, "")}.meta.json`;
  cpSync(kept.metafile, metafile);
  const now = new Date();
  utimesSync(kept.entry, now, now); // used: kept another week
  return { outfile: join(outdir, entry.outfile), metafile, result: entry.result };
}

/** Keeps a finished build (outdir, its overlay and metafile) for `recipe`, replacing what was kept for it. */
export function keepBuild<Result>(recipe: Recipe, outdir: string, outfile: string, metafile: string, result: Result): void {
  const dir = entryDir(recipe);
  if (!dir) return;
  const scratch = `${dir}.${randomBytes(4).toString("hex")}`;
  const kept = parts(scratch);
  mkdirSync(scratch, { recursive: true });
  cpSync(outdir, kept.artifact, { recursive: true, verbatimSymlinks: true });
  if (existsSync(labOverlayOf(outdir))) cpSync(labOverlayOf(outdir), kept.overlay, { recursive: true });
  cpSync(metafile, kept.metafile);
  const entry: Entry<Result> = {
    ingredients: ingredientsOf(JSON.parse(readFileSync(metafile, "utf8")) as Metafile),
    outfile: relative(outdir, outfile),
    result,
  };
  writeFileSync(kept.entry, JSON.stringify(entry));
  // Another process may have kept the same recipe meanwhile: either entry is the same build.
  if (existsSync(dir) && statSync(dir).isDirectory()) removeTree(dir);
  try {
    renameSync(scratch, dir);
  } catch {
    removeTree(scratch);
  }
  pruneUnused(dirname(dir));
}

const WEEK_MS = 7 * 24 * 3600 * 1000;

/** Removes the entries no build has used for a week (recipes of a builder since changed, mostly). */
function pruneUnused(root: string): void {
  for (const name of readdirSync(root)) {
    const entry = parts(join(root, name)).entry;
    try {
      if (Date.now() - statSync(entry).mtimeMs > WEEK_MS) removeTree(join(root, name));
    } catch {
      // Being written by another process (no entry.json yet), or removed by one.
    }
  }
}
