// Runs SAM CLI from the project's venv, in a SAM app's folder (where its samconfig.toml is read).
import { existsSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { PROJECT_TEMPLATE, SETUP_HINT, VENV_BIN } from "../core/paths.mts";
import { spawnOwned } from "../core/processes.mts";

class SamError extends Error {
  override name = "SamError";
}

/** Runs `sam <args>` in a folder (default: the project's); resolves with its output, rejects with it on failure. */
export function sam(args: string[], { quiet = false, cwd = dirname(PROJECT_TEMPLATE), venvBin = VENV_BIN } = {}): Promise<string> {
  const bin = join(venvBin, "sam");
  if (!existsSync(bin)) return Promise.reject(new SamError(`SAM CLI not found at ${bin}; ${SETUP_HINT}.`));
  return new Promise((resolve, reject) => {
    const child = spawnOwned(bin, args, {
      cwd,
      env: { ...process.env, SAM_CLI_TELEMETRY: "0" },
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

/**
 * `sam build` of a template (default: the project's), in its folder with its samconfig.toml's
 * settings (build in source, parallel, makefile builder); with logical ids, only those.
 */
export function samBuild(options: { template?: string; resources?: string[]; quiet?: boolean } = {}): Promise<string> {
  const template = resolve(options.template ?? PROJECT_TEMPLATE);
  return sam(["build", ...(options.resources ?? []), "--template-file", basename(template)], { quiet: options.quiet, cwd: dirname(template) });
}
