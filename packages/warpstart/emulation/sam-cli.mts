// What the lab's events take from SAM CLI without running a build: its version, and its event
// generator (the project's venv; lab/sam.mts runs the rest of SAM CLI).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { SETUP_HINT, VENV_BIN } from "../core/paths.mts";

export class SamError extends Error {
  override name = "SamError";
}

export const notInstalled = (venvBin: string) => new SamError(`SAM CLI not found at ${join(venvBin, "sam")}; ${SETUP_HINT}.`);

let installedVersion: string | undefined;

/** SAM CLI's version as the venv installed it, read once from its dist-info folder: no Python to start. */
export function samCliVersion(): string {
  if (installedVersion) return installedVersion;
  const lib = join(VENV_BIN, "../lib");
  const sitePackages = existsSync(lib) ? readdirSync(lib).map((python) => join(lib, python, "site-packages")) : [];
  installedVersion = sitePackages
    .flatMap((dir) => (existsSync(dir) ? readdirSync(dir) : []))
    .map((name) => /^aws_sam_cli-(.+)\.dist-info$/.exec(name)?.[1])
    .find((version) => version !== undefined);
  if (!installedVersion) throw notInstalled(VENV_BIN);
  return installedVersion;
}

/**
 * `sam local generate-event <args>`: the event's JSON text. Synchronous, so an event is made
 * where it is needed (emulation/events.mts keeps each, so it runs once per event). `cwd` should hold no
 * samconfig.toml: the generator takes its options' defaults from one.
 */
export function samGenerateEvent(args: string[], cwd: string): string {
  const run = spawnSync(join(VENV_BIN, "sam"), ["local", "generate-event", ...args], {
    cwd,
    env: { ...process.env, SAM_CLI_TELEMETRY: "0" },
    encoding: "utf8",
  });
  if ((run.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") throw notInstalled(VENV_BIN);
  if (run.error) throw run.error;
  if (run.status !== 0) throw new SamError(`sam local generate-event ${args.join(" ")} failed (exit ${run.status}):\n${run.stderr.trim()}`);
  return run.stdout;
}
