#!/usr/bin/env node
// `warpstart <command> [options]`: every command of the project behind one program (cli/commands.mts).
import { runCommand } from "../core/options.mts";
import { COMMANDS } from "./commands.mts";

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
