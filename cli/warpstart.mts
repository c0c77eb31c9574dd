#!/usr/bin/env node
// `warpstart <command> [options]`: every command of the project behind one program. A command's
// module is loaded only when it runs, so that `warpstart build` (SAM's makefile builder, once per
// function) loads the builder alone.
import { type Command, runCommand } from "../core/cli.mts";

type Loader = () => Promise<{ command: Command }>;

/** The commands, in the order a newcomer meets them. */
const COMMANDS: Record<string, Loader> = {
  invoke: () => import("../lab/invoke.mts"),
  lab: () => import("../lab/start-lab.mts"),
  aws: () => import("../lab/serve-aws.mts"),
  bench: () => import("../bench/cli.mts"),
  doctor: () => import("../doctor/cli.mts"),
  load: () => import("../load_test/run.mts"),
  phases: () => import("../bench/phases.mts"),
  keepalive: () => import("../bench/keepalive.mts"),
  "warp:pin": () => import("../bench/warp-pin.mts"),
  build: () => import("../builder/build.mts"),
};

/** The list of commands, each with its summary. */
async function overview(): Promise<string> {
  const lines = await Promise.all(
    Object.entries(COMMANDS).map(async ([name, load]) => {
      const { spec } = (await load()).command;
      return `  ${name.padEnd(11)}${spec.summary}`;
    }),
  );
  return ["usage: warpstart <command> [options]   (warpstart <command> --help: its options)", "", ...lines].join("\n");
}

const [name, ...args] = process.argv.slice(2);
if (name === undefined || name === "--help" || name === "-h" || name === "help") {
  console.log(await overview());
  process.exit(name === undefined ? 2 : 0);
}
const load = COMMANDS[name];
if (!load) {
  console.error(`error: warpstart has no command "${name}"\n\n${await overview()}`);
  process.exit(2);
}
const { command } = await load();
runCommand(command, args);
