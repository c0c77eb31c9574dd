// What the lab's events take from SAM CLI without running a build: its version, and its event
// generator (the SAM CLI core/tools.mts resolves: the user's, or the package's; lab/sam.mts runs the rest of SAM CLI).
import { spawnSync } from "node:child_process";
import { resolveSamCli } from "../core/tools.mts";

export class SamError extends Error {
  override name = "SamError";
}

export const notInstalled = (bin: string) =>
  new SamError(`SAM CLI not found at ${bin}: install SAM CLI, or remove it from PATH to let warpstart install its own.`);

/** SAM CLI's version, as resolveSamCli read it. */
export const samCliVersion = (): string => resolveSamCli().version;

/**
 * `sam local generate-event <args>`: the event's JSON text. Synchronous, so an event is made
 * where it is needed (emulation/events.mts keeps each, so it runs once per event). `cwd` should hold no
 * samconfig.toml: the generator takes its options' defaults from one.
 */
export function samGenerateEvent(args: string[], cwd: string): string {
  const { bin } = resolveSamCli();
  const run = spawnSync(bin, ["local", "generate-event", ...args], {
    cwd,
    env: { ...process.env, SAM_CLI_TELEMETRY: "0" },
    encoding: "utf8",
  });
  if ((run.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") throw notInstalled(bin);
  if (run.error) throw run.error;
  if (run.status !== 0) throw new SamError(`sam local generate-event ${args.join(" ")} failed (exit ${run.status}):\n${run.stderr.trim()}`);
  return run.stdout;
}
