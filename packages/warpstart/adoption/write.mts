// The one writer of what adopt and the doctor's --fix change in an app: each template edited in
// place (only the properties that change: template-edit.mts), the Makefiles and package.json beside
// them, the unified diff of all of it, and the writes, which refuse a file changed since it was read.
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { relative } from "node:path";
import { errorMessage } from "../core/errors.mts";
import { editTemplate, type TemplateChange } from "./template-edit.mts";
import { unifiedDiff } from "./unified-diff.mts";

class WriteError extends Error {
  override name = "WriteError";
}

/** One file a rewrite changes: what it held when read ("" for a new one) and what it is to hold. */
export interface Rewrite {
  file: string;
  was: string;
  is: string;
}

/** A template's rewrite: its text as read, each resource's change spliced in. */
export const templateRewrite = (file: string, text: string, changes: TemplateChange[]): Rewrite => ({ file, was: text, is: editTemplate(text, changes) });

/** The unified diff of every rewrite, each file named from the folder the command runs in. */
export const diffOf = (rewrites: Rewrite[]): string =>
  rewrites.map(({ file, was, is }) => unifiedDiff(was, is, relative(process.cwd(), file) || file)).join("");

/**
 * Writes each rewrite. A file that held something is written only if it still holds what was read
 * (an edit made meanwhile would be lost) and is not read-only (whoever made it so meant it, root or
 * not); every file is checked before any is written.
 */
export function writeRewrites(rewrites: Rewrite[], by: "adopt" | "--fix"): void {
  const nothingWritten = `nothing written; the diff above is what ${by} would change`;
  const again = by === "adopt" ? "run adopt again" : "run the doctor again";
  for (const { file, was } of rewrites) {
    if (!existsSync(file)) {
      if (was === "") continue;
      throw new WriteError(`${file} is gone since it was read: ${nothingWritten}; ${again}`);
    }
    if (readFileSync(file, "utf8") !== was) throw new WriteError(`${file} changed since it was read: ${nothingWritten}; ${again} on it as it is now`);
    const mode = statSync(file).mode & 0o777;
    if ((mode & 0o222) === 0) throw new WriteError(`${file} is read-only (mode ${mode.toString(8).padStart(4, "0")}): ${nothingWritten}`);
  }
  for (const { file, is } of rewrites) {
    try {
      writeFileSync(file, is);
    } catch (error) {
      throw new WriteError(`cannot write ${file}: ${errorMessage(error)}`, { cause: error });
    }
  }
}
