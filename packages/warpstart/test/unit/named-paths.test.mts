// Every file of the project a comment or a guide page names exists: a comment that points a reader
// to a module that moved, or a page that names a retired file, sends them nowhere. A name is a path
// under one of the project's own folders; it resolves from the repository's root, the package's
// root or the naming file's folder. Tests are not read: they name files that do not exist on purpose.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { DEMO_ROOT } from "../support/demo.mts";

// Not src/: an app's handlers and a build's artifacts live under a src/ of their own, which pages name as examples.
const FOLDERS = ["bench", "builder", "cli", "core", "doctor", "emulation", "lab", "load_test", "measure", "scripts", "published", "starter", "docs", "test"];
const NAMED = new RegExp(`(?<![\\w./@-])((?:${FOLDERS.join("|")})/[\\w./-]*\\.(?:mts|mjs|cjs|cts|md|sh|yaml|json|py))`, "g");
const NOT_READ = new Set(["node_modules", "tools", "test", "results", "examples", ".aws-sam", ".lab", ".venv", ".git"]);

/** The project's code and guide pages: its own files, not its tests', installs' or runs'. */
function readable(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return NOT_READ.has(entry.name) ? [] : readable(path);
    return /\.(mts|mjs|cjs|md)$/.test(entry.name) || entry.name === "Makefile" ? [path] : [];
  });
}

/** What a reader reads as prose: a code file's comments, a page's text. */
function prose(file: string): string {
  const text = readFileSync(file, "utf8");
  if (file.endsWith(".md")) return text;
  return text
    .split("\n")
    .filter((line) => /^\s*(\/\/|\/\*|\*|#)/.test(line))
    .join("\n");
}

it("every file a comment or a page names exists", () => {
  const missing = readable(DEMO_ROOT).flatMap((file) =>
    [...prose(file).matchAll(NAMED)]
      .map((match) => match[1]!.replace(/\.$/, ""))
      .filter((named) => ![DEMO_ROOT, PACKAGE_ROOT, dirname(file)].some((root) => existsSync(join(root, named))))
      .map((named) => `${relative(DEMO_ROOT, file)}: ${named}`),
  );
  expect(missing).toEqual([]);
});
