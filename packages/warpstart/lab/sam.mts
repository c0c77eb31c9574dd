// Runs SAM CLI (the user's on PATH, or the package's: core/tools.mts resolveSamCli), in a SAM app's folder (where its samconfig.toml is read).
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { builtByPipeline } from "../builder/handler.mts";
import { PROFILES, profileForNode } from "../builder/profiles.mts";
import { errorMessage } from "../core/errors.mts";
import { DEFAULT_TEMPLATE } from "../core/paths.mts";
import { removeTree, spawnOwned } from "../core/processes.mts";
import { installNodeFor, runtimeOrWhyNot } from "../core/runtimes.mts";
import { BUILD_PARAMETERS_VARIABLE, parameterOverridesText } from "../core/samconfig.mts";
import { readTemplate, type TemplateFunction } from "../core/template.mts";
import { resolveSamCli } from "../core/tools.mts";
import { notInstalled, SamError } from "../emulation/sam-cli.mts";

/** Runs `sam <args>` in a folder (default: the current one); resolves with its output, rejects with it on failure. */
export function sam(args: string[], { quiet = false, cwd = process.cwd(), bin = "", env = {} as Record<string, string> } = {}): Promise<string> {
  bin ||= resolveSamCli().bin;
  if (!existsSync(bin)) return Promise.reject(notInstalled(bin));
  return new Promise((resolve, reject) => {
    const child = spawnOwned(bin, args, {
      cwd,
      env: { ...process.env, ...env, SAM_CLI_TELEMETRY: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output: string[] = [];
    for (const stream of [child.stdout!, child.stderr!]) {
      stream.on("data", (chunk: Buffer) => {
        output.push(chunk.toString());
        if (!quiet) process.stderr.write(chunk);
      });
    }
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0
        ? resolve(output.join(""))
        : reject(new SamError(`sam ${args.join(" ")} failed (exit ${code}):\n${output.join("").slice(-4000)}${samHint(output.join(""))}`)),
    );
  });
}

/** What to do about a failure of SAM's whose cause is the app's set-up, not its code. */
function samHint(output: string): string {
  // npm install in a folder without a package.json writes one with neither, and SAM's npm builder packs it.
  if (output.includes("Invalid package, must have name and version"))
    return "\nA package.json SAM's npm builder packs has no name or version (npm install --save-dev warpstart writes one so in an app that had none): npx warpstart adopt gives it both, or run npm pkg set name=my-app version=1.0.0 there.";
  return "";
}

interface SamBuildOptions {
  /** Default: the project's template. */
  template?: string;
  /** Only these logical ids (default: all). */
  resources?: string[];
  quiet?: boolean;
  /** The SAM app whose folder (and samconfig.toml) the build runs in (default: the template's own). */
  appDir?: string;
  /** Where the artifacts and built template go (default: the app's .aws-sam/build). */
  buildDir?: string;
  /** Added to the build's environment (the Makefile reads WARPSTART_TEMPLATE). */
  env?: Record<string, string>;
  /** Logical ids left out of the build (SAM's --exclude): the built template names them as written. */
  exclude?: string[];
  /** The template's parameters (sam build's --parameter-overrides), which the pipeline's builds read too. */
  parameterOverrides?: Record<string, string>;
}

/**
 * What a Warp build's code cache needs on this machine (its runtime's Node, for arm64 under qemu),
 * installed before `sam build` starts, where its progress shows: a build's own output is SAM's,
 * shown on failure. A template that cannot be read is SAM's to report.
 */
function warpToolsFirst(template: string): void {
  let functions: TemplateFunction[];
  try {
    functions = readTemplate(template).functions;
  } catch {
    return;
  }
  for (const fn of functions.filter((fn) => builtByPipeline(fn) && String(fn.buildProperties.Profile ?? "").startsWith("Warp"))) {
    const runtime = runtimeOrWhyNot(fn);
    // Only where its Node makes a cache (not Node 18's: builder/profiles.mts profileForNode).
    if ("nodeMajor" in runtime && profileForNode(PROFILES.Warp, runtime.nodeMajor).profile.codeCache) installNodeFor(runtime, [fn.architecture]);
  }
}

/**
 * `sam build` of a template (default: template.yaml in the current folder, as sam reads it), in its app's folder with its samconfig.toml's
 * settings (build in source, parallel, makefile builder); with logical ids, only those.
 */
export function samBuild(options: SamBuildOptions = {}): Promise<string> {
  const template = resolve(options.template ?? DEFAULT_TEMPLATE);
  warpToolsFirst(template);
  const appDir = options.appDir ?? dirname(template);
  const args = ["build", ...(options.resources ?? []), "--template-file", appDir === dirname(template) ? basename(template) : template];
  if (options.buildDir) args.push("--build-dir", options.buildDir);
  for (const id of options.exclude ?? []) args.push("--exclude", id);
  // SAM looks for samconfig.toml beside the template: a template elsewhere builds with the app's settings.
  const appConfig = join(appDir, "samconfig.toml");
  if (appDir !== dirname(template) && existsSync(appConfig)) args.push("--config-file", appConfig);
  const overrides = options.parameterOverrides ?? {};
  const given = Object.keys(overrides).length > 0;
  if (given) args.push("--parameter-overrides", parameterOverridesText(overrides));
  return sam(args, {
    quiet: options.quiet,
    cwd: appDir,
    env: { ...options.env, ...(given ? { [BUILD_PARAMETERS_VARIABLE]: JSON.stringify(overrides) } : {}) },
  });
}

/**
 * `sam build` of every function that builds. SAM stops at the first function whose build fails, so
 * then each one is built alone (into a folder of its own, removed after) to find the ones that fail,
 * and the others are built again, without them, where `sam build` puts them. Resolves with each
 * function left out and its build's error line; when every function fails (or there is one to
 * build), rejects with SAM's own error, as `samBuild` does.
 */
export async function samBuildEach(options: SamBuildOptions = {}, say?: (line: string) => void): Promise<Map<string, string>> {
  try {
    await samBuild(options);
    return new Map();
  } catch (error) {
    const template = resolve(options.template ?? DEFAULT_TEMPLATE);
    const ids = readTemplate(template)
      .functions.map((fn) => fn.logicalId)
      .filter((id) => !options.resources || options.resources.includes(id))
      .filter((id) => !options.exclude?.includes(id));
    if (ids.length < 2) throw error;
    say?.(`sam build failed: building its ${ids.length} functions one by one to find the ones that fail`);
    const failed = new Map<string, string>();
    const scratch = mkdtempSync(join(tmpdir(), "warpstart-build-each-"));
    try {
      for (const id of ids) {
        try {
          await samBuild({ ...options, resources: [id], buildDir: join(scratch, id) });
        } catch (alone) {
          failed.set(id, buildErrorLine(errorMessage(alone)));
        }
      }
    } finally {
      removeTree(scratch);
    }
    if (failed.size === ids.length) throw error;
    for (const [id, line] of failed) say?.(`${id} is left out: its build fails: ${line}`);
    await samBuild({ ...options, exclude: [...(options.exclude ?? []), ...failed.keys()] });
    return failed;
  }
}

/** The line of a failed `sam build`'s output that says what failed: SAM's `Error:` line (its builder's own error), else its last. */
function buildErrorLine(output: string): string {
  const lines = output.split("\n").map((line) => line.trim());
  const error = lines.findLast((line) => line.startsWith("Error: "));
  return error ? error.slice("Error: ".length) : (lines.findLast(Boolean) ?? output);
}
