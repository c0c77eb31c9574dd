// Runs SAM CLI from the project's venv.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT, SETUP_HINT, VENV_BIN } from "./paths.mts";

export class SamError extends Error {
  override name = "SamError";
}

/** Runs `sam <args>` in the project root; resolves with its output, rejects with it on failure. */
export function sam(args: string[], { quiet = false } = {}): Promise<string> {
  const bin = join(VENV_BIN, "sam");
  if (!existsSync(bin)) return Promise.reject(new SamError(`SAM CLI not found at ${bin}; ${SETUP_HINT}.`));
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      cwd: PROJECT_ROOT,
      env: { ...process.env, SAM_CLI_TELEMETRY: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output: string[] = [];
    for (const stream of [child.stdout, child.stderr]) {
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

/** `sam build` with samconfig.toml's settings (build in source, parallel, makefile builder). */
export function samBuild(options: { quiet?: boolean } = {}): Promise<string> {
  return sam(["build"], options);
}
