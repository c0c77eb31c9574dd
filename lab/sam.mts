// Runs SAM CLI from the project's venv, in a SAM app's folder (where its samconfig.toml is read).
import { existsSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { PROJECT_TEMPLATE, SETUP_HINT, VENV_BIN } from "../core/paths.mts";
import { spawnOwned } from "../core/processes.mts";

class SamError extends Error {
  override name = "SamError";
}

/** Runs `sam <args>` in a folder (default: the project's); resolves with its output, rejects with it on failure. */
export function sam(
  args: string[],
  { quiet = false, cwd = dirname(PROJECT_TEMPLATE), venvBin = VENV_BIN, env = {} as Record<string, string> } = {},
): Promise<string> {
  const bin = join(venvBin, "sam");
  if (!existsSync(bin)) return Promise.reject(new SamError(`SAM CLI not found at ${bin}; ${SETUP_HINT}.`));
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
      code === 0 ? resolve(output.join("")) : reject(new SamError(`sam ${args.join(" ")} failed (exit ${code}):\n${output.join("").slice(-4000)}`)),
    );
  });
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
}

/**
 * `sam build` of a template (default: the project's), in its app's folder with its samconfig.toml's
 * settings (build in source, parallel, makefile builder); with logical ids, only those.
 */
export function samBuild(options: SamBuildOptions = {}): Promise<string> {
  const template = resolve(options.template ?? PROJECT_TEMPLATE);
  const appDir = options.appDir ?? dirname(template);
  const args = ["build", ...(options.resources ?? []), "--template-file", appDir === dirname(template) ? basename(template) : template];
  if (options.buildDir) args.push("--build-dir", options.buildDir);
  // SAM looks for samconfig.toml beside the template: a template elsewhere builds with the app's settings.
  const appConfig = join(appDir, "samconfig.toml");
  if (appDir !== dirname(template) && existsSync(appConfig)) args.push("--config-file", appConfig);
  return sam(args, { quiet: options.quiet, cwd: appDir, env: options.env });
}
