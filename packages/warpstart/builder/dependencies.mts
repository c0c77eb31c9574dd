// A function's npm dependencies, installed where its build reads them. SAM's npm builder installs
// them on every `sam build` (in its build folder); the makefile builder leaves that to the Makefile,
// so the pipeline does it when the function's package has dependencies and no node_modules.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { errorMessage } from "../core/errors.mts";
import { foldersUp } from "../core/paths.mts";
import { execOwned } from "../core/processes.mts";
import { BuildError } from "./errors.mts";

/** npm's install of what Lambda gets, as SAM's npm builder runs it: no devDependencies, nothing saved. */
const NPM_INSTALL = ["install", "--omit=dev", "--no-save", "--no-audit", "--no-fund", "--loglevel=error"];

/** The folder of a function's package: the nearest with a package.json from its CodeUri up to the app's (null: it has none). */
export function packageRootOf(codeDir: string, appDir: string): string | null {
  return foldersUp(codeDir, appDir).find((dir) => existsSync(join(dir, "package.json"))) ?? null;
}

/** Whether a package lists dependencies that nothing has installed yet (no node_modules beside its package.json). */
export function notInstalled(packageRoot: string): boolean {
  const { dependencies = {} } = JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
  return Object.keys(dependencies).length > 0 && !existsSync(join(packageRoot, "node_modules"));
}

/** What the locked install prints when another build installed the package while it waited. */
const INSTALLED_MEANWHILE = "warpstart: installed meanwhile";

/**
 * `npm install` of a package folder's dependencies (npm's first error line when it fails). Under
 * `lock` (flock's), it installs only if no build installed it while it waited: two functions of one
 * package built at once (sam build --parallel) install it once. Resolves with whether it installed.
 */
export async function npmInstall(dir: string, named: string, lock?: string): Promise<boolean> {
  const [command, args] =
    lock === undefined
      ? ["npm", NPM_INSTALL]
      : ["flock", [lock, "sh", "-c", `if test -d node_modules; then echo "${INSTALLED_MEANWHILE}"; else exec npm "$@"; fi`, "npm", ...NPM_INSTALL]];
  try {
    const { stdout } = await execOwned(command, args, { cwd: dir, timeout: 600_000 });
    return !stdout.includes(INSTALLED_MEANWHILE);
  } catch (error) {
    const { stderr = "" } = error as { stderr?: string };
    const line = stderr.split("\n").find((text) => /npm (error|ERR!)/.test(text)) ?? errorMessage(error).split("\n")[0];
    throw new BuildError(`npm install of its dependencies (${named}/package.json) failed: ${line}`, { cause: error });
  }
}

/** Whether this machine has util-linux's flock on PATH (macOS has none: there two builds of one package may install it twice). */
const hasFlock = () => spawnSync("flock", ["--version"], { stdio: "ignore" }).status === 0;

/**
 * Installs a function's dependencies in its own package folder when they are not there: what SAM's
 * npm builder did before the function moved to the pipeline (and what `sam build --build-in-source`
 * does in place). Returns the line that says so, or null when there was nothing to install.
 */
export async function installDependencies(codeDir: string, appDir: string): Promise<string | null> {
  const root = packageRootOf(codeDir, appDir);
  if (root === null || !notInstalled(root)) return null;
  const named = relative(appDir, root) || ".";
  const lock = hasFlock() ? join(tmpdir(), `warpstart-npm-${createHash("sha256").update(root).digest("hex").slice(0, 16)}.lock`) : undefined;
  const installed = await npmInstall(root, named, lock);
  return installed ? `installed ${named}/node_modules (npm ${NPM_INSTALL.slice(0, 2).join(" ")}), as SAM's npm builder did` : null;
}
