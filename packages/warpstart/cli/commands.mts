// The commands of `warpstart`, by the name a user types, in the order a newcomer meets them: each
// module is loaded only when its command runs, so that `warpstart build` (SAM's makefile builder,
// once per function) loads the builder alone.
import type { Command } from "../core/options.mts";

type Loader = () => Promise<{ command: Command }>;

export const COMMANDS: Record<string, Loader> = {
  invoke: () => import("./invoke.mts"),
  lab: () => import("./lab.mts"),
  aws: () => import("./aws.mts"),
  bench: () => import("./bench.mts"),
  doctor: () => import("./doctor.mts"),
  adopt: () => import("./adopt.mts"),
  load: () => import("./load.mts"),
  phases: () => import("./phases.mts"),
  keepalive: () => import("./keepalive.mts"),
  "warp:pin": () => import("./warp-pin.mts"),
  build: () => import("./build.mts"),
};
