// An app's own patches to the packages it installs, as patch-package writes them
// (patches/<package>+<version>.patch beside the package.json whose node_modules they change): every
// build bundles the package as patched, whether or not patch-package's postinstall has run on the
// node_modules it reads, and whichever tree it reads the package from (the app's, or the copy of
// its SDK that Optimized and Warp bundle, which the package's own patches change: sdk-tree.mts).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { applyPatch, parsePatch, reversePatch, type StructuredPatch } from "diff";
import type { Plugin } from "esbuild";
import { foldersUp } from "../core/paths.mts";

/** One file an app's patch changes: its path from the folder of the patched node_modules ("node_modules/uuid/dist/index.js"). */
interface PatchedFile {
  patch: string;
  diff: StructuredPatch;
}

/** The patches/ folders from a function's code up to the app's folder, each beside the package.json whose node_modules it patches. */
export function appPatchFiles(codeDir: string, appDir: string): string[] {
  return foldersUp(codeDir, appDir)
    .map((dir) => join(dir, "patches"))
    .filter((dir) => existsSync(join(dir, "..", "package.json")) && existsSync(dir))
    .flatMap((dir) =>
      readdirSync(dir)
        .filter((file) => file.endsWith(".patch"))
        .sort()
        .map((file) => join(dir, file)),
    );
}

/** Each file the patches change, by its path under node_modules; the nearest folder's patch of a file wins, as npm resolves the nearest package. */
function patchedFiles(patchFiles: string[]): Map<string, PatchedFile> {
  const byPath = new Map<string, PatchedFile>();
  for (const patch of [...patchFiles].reverse())
    for (const diff of parsePatch(readFileSync(patch, "utf8"))) {
      const path = (diff.newFileName ?? "").replace(/^b\//, "");
      if (path.startsWith("node_modules/")) byPath.set(path, { patch, diff });
    }
  return byPath;
}

/**
 * The plugin that loads each file an app's patch changes as patched: a file as installed gets the
 * patch, one patch-package already patched is loaded as it is, and one the patch does not fit (the
 * package's version moved on) stops the build, saying which patch, as patch-package's postinstall does.
 */
export function appPatches(patchFiles: string[], appDir: string): Plugin[] {
  if (patchFiles.length === 0) return [];
  const byPath = patchedFiles(patchFiles);
  return [
    {
      name: "app-patches",
      setup(b) {
        b.onLoad({ filter: /[\\/]node_modules[\\/]/ }, (args) => {
          const inModules = args.path.slice(args.path.indexOf("node_modules/"));
          const patched = byPath.get(inModules);
          if (!patched) return undefined;
          const text = readFileSync(args.path, "utf8");
          if (applyPatch(text, reversePatch(patched.diff)) !== false) return undefined; // patch-package applied it already
          const contents = applyPatch(text, patched.diff);
          if (contents !== false) return { contents, loader: "default" };
          const pkg = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(inModules)![1];
          const why = `${relative(appDir, patched.patch)} does not apply to ${inModules} as installed: make it again for the installed version (npx patch-package ${pkg})`;
          return { errors: [{ text: why }] };
        });
      },
    },
  ];
}
