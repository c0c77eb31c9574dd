// A copy of the repository in a temporary folder, as a clone has it (the demo app and the package it
// installs), for the tests that change what a user changes (package.json, template.yaml, src/) and
// must leave the repository as it is. What setup installed comes with it: the pinned Node and the
// venv linked (used as they are), the npm trees linked where the test only reads them, copied where
// it installs into them (npm changes them).
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { DEMO_ROOT } from "./demo.mts";

/** The package's folder in the repository (packages/warpstart). */
export const PACKAGE_DIR = relative(DEMO_ROOT, PACKAGE_ROOT);
const NPM_TREES = [
  "node_modules",
  ...["published", "emulation/runtime/node22", "emulation/runtime/node24"].map((tree) => `${PACKAGE_DIR}/${tree}/node_modules`),
];

export function copyProject(npmTrees: "linked" | "copied"): string {
  const copy = mkdtempSync(join(tmpdir(), "warpstart-project-copy-"));
  const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], { cwd: DEMO_ROOT, encoding: "utf8" })
    .split("\0")
    .filter(Boolean);
  for (const file of files.filter((name) => existsSync(join(DEMO_ROOT, name)) && !name.startsWith(`${PACKAGE_DIR}/tools/`))) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(DEMO_ROOT, file), join(copy, file));
  }
  for (const tree of NPM_TREES) {
    if (npmTrees === "copied") cpSync(join(DEMO_ROOT, tree), join(copy, tree), { recursive: true, verbatimSymlinks: true });
    else symlinkSync(join(DEMO_ROOT, tree), join(copy, tree));
  }
  for (const linked of ["tools", ".venv"]) symlinkSync(join(PACKAGE_ROOT, linked), join(copy, PACKAGE_DIR, linked));
  return copy;
}
