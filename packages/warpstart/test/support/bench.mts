// `warpstart bench` as the bench's tests run it: spawned in the demo app's folder, as a CI job (no
// progress bar), with `env` added.
import { spawnSync } from "node:child_process";
import { NODE22 } from "../../core/paths.mts";
import { DEMO_ROOT } from "./demo.mts";
import { WARPSTART } from "./warpstart.mts";

export const benchWith = (env: Record<string, string>, ...args: string[]) =>
  spawnSync(NODE22, [WARPSTART, "bench", ...args], {
    cwd: DEMO_ROOT,
    encoding: "utf8",
    timeout: 240_000,
    env: { ...process.env, CI: "true", ...env },
  });
export const bench = (...args: string[]) => benchWith({}, ...args);
