// Warp's SDK chunk, written once in a `sam build` for the functions that would each write the same
// one: an app's functions mostly import the same clients, and esbuild takes 0.3 s a chunk. Shared
// within one sam build only (the build cache's switch does not touch it): kept beside the
// artifacts, in the folder SAM empties as each build starts, and used while every file it was
// built from is as it was.
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { Metafile } from "esbuild";
import { PACKAGE_ROOT } from "../core/paths.mts";
import { removeTree } from "../core/processes.mts";
import { digest, ingredientsOf, unchanged } from "./build-cache.mts";

/** The folder a sam build shares its chunks in, beside the artifacts; null for a build SAM does not run (outdir is not its ARTIFACTS_DIR). */
export function sharedChunksDir(outdir: string): string | null {
  const artifacts = process.env.ARTIFACTS_DIR;
  return artifacts && resolve(artifacts) === outdir ? join(dirname(outdir), ".warpstart-chunks") : null;
}

/** A chunk kept for the other builds: what it read, and its metafile with the outputs named by file (they sit beside the handler). */
interface Kept {
  ingredients: Record<string, string>;
  metafile: Metafile;
}

/**
 * The chunk `recipe` makes (everything its esbuild call depends on besides the files it reads),
 * written to chunkFile: copied from an earlier build of the same sam build when there is one whose
 * files are unchanged, else built and kept for the next. The metafile names the outputs where
 * this build wrote them.
 */
export async function sharedChunk(dir: string | null, recipe: unknown, chunkFile: string, build: () => Promise<Metafile>): Promise<Metafile> {
  if (!dir) return build();
  const entry = join(dir, digest(JSON.stringify(recipe)));
  const at = dirname(chunkFile);
  const renamed = (outputs: Metafile["outputs"], name: (path: string) => string) =>
    Object.fromEntries(Object.entries(outputs).map(([path, output]) => [name(path), output]));
  const kept = readKept(entry);
  if (kept && unchanged(kept.ingredients)) {
    for (const file of Object.keys(kept.metafile.outputs)) copyFileSync(join(entry, file), join(at, file));
    return { ...kept.metafile, outputs: renamed(kept.metafile.outputs, (file) => relative(PACKAGE_ROOT, join(at, file))) };
  }
  const metafile = await build();
  if (kept) removeTree(entry); // built from files since changed
  const outputs = renamed(metafile.outputs, (path) => relative(at, resolve(PACKAGE_ROOT, path)));
  const scratch = `${entry}.${process.pid}`;
  mkdirSync(scratch, { recursive: true });
  for (const file of Object.keys(outputs)) copyFileSync(join(at, file), join(scratch, file));
  writeFileSync(join(scratch, "kept.json"), JSON.stringify({ ingredients: ingredientsOf(metafile), metafile: { ...metafile, outputs } } satisfies Kept));
  // A build beside this one (sam build --parallel) may have kept the same chunk meanwhile: either is it.
  try {
    renameSync(scratch, entry);
  } catch {
    removeTree(scratch);
  }
  return metafile;
}

function readKept(entry: string): Kept | null {
  const file = join(entry, "kept.json");
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Kept;
  } catch {
    return null;
  }
}
