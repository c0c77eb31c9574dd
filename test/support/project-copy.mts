// A copy of the project in a temporary folder, as a clone has it, for the tests that change what a
// user changes (package.json, template.yaml, src/) and must leave the project as it is. What setup
// installed comes with it: the pinned Node and the venv linked (used as they are), the npm trees
// linked where the test only reads them, copied where it installs into them (npm changes them).
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PROJECT_ROOT } from "../../core/paths.mts";

const NPM_TREES = ["node_modules", "patches/node_modules", "emulation/runtime/node22/node_modules", "emulation/runtime/node24/node_modules"];

export function copyProject(npmTrees: "linked" | "copied"): string {
  const copy = mkdtempSync(join(tmpdir(), "warpstart-project-copy-"));
  const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], { cwd: PROJECT_ROOT, encoding: "utf8" })
    .split("\0")
    .filter(Boolean);
  for (const file of files.filter((name) => existsSync(join(PROJECT_ROOT, name)) && !name.startsWith("tools/"))) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(PROJECT_ROOT, file), join(copy, file));
  }
  for (const tree of NPM_TREES) {
    if (npmTrees === "copied") cpSync(join(PROJECT_ROOT, tree), join(copy, tree), { recursive: true, verbatimSymlinks: true });
    else symlinkSync(join(PROJECT_ROOT, tree), join(copy, tree));
  }
  for (const linked of ["tools", ".venv"]) symlinkSync(join(PROJECT_ROOT, linked), join(copy, linked));
  return copy;
}
