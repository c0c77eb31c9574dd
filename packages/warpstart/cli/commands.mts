// The commands of `warpstart`, by the name a user types, in the order a newcomer meets them: each
// module is loaded only when its command runs, so that `warpstart build` (SAM's makefile builder,
// once per function) loads the builder alone.
import type { Command } from "../core/cli.mts";

type Loader = () => Promise<{ command: Command }>;

export const COMMANDS: Record<string, Loader> = {
  invoke: () => import("../lab/invoke.mts"),
  lab: () => import("../lab/start-lab.mts"),
  aws: () => import("../lab/serve-aws.mts"),
  bench: () => import("../bench/cli.mts"),
  doctor: () => import("../doctor/cli.mts"),
  adopt: () => import("../doctor/adopt.mts"),
  load: () => import("../load_test/run.mts"),
  phases: () => import("../bench/phases.mts"),
  keepalive: () => import("../bench/keepalive.mts"),
  "warp:pin": () => import("../bench/warp-pin.mts"),
  build: () => import("./build.mts"),
};
