#!/usr/bin/env node
// The `warpstart` program as npm links it. Installed (from npm, or a tarball `npm pack` made), the
// package is JavaScript and runs here, in this process, on the Node that started it. In a source
// checkout it is TypeScript: scripts/with-tools.sh installs what this repository's commands run on
// (the pinned Node 22, which strips the types, SAM CLI, moto, the workspace's dependencies) and
// runs cli/warpstart.mts there, in the folder it was started in.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const built = join(here, "cli/warpstart.mjs");

if (existsSync(built) && here.split("/").includes("node_modules")) {
  // The Nodes it runs on: its engines field, the one place that says so.
  const { engines } = JSON.parse(readFileSync(join(here, "package.json"), "utf8"));
  const { default: semver } = await import("semver");
  if (!semver.satisfies(process.versions.node, engines.node)) {
    process.stderr.write(
      `[warpstart] error: warpstart runs on Node ${engines.node}; this is Node ${process.versions.node} (${process.execPath}). Install a newer Node, or put one first on PATH.\n`,
    );
    process.exit(1);
  }
  await import(built);
} else {
  const child = spawn("bash", [join(here, "scripts/with-tools.sh"), "--parts", "base", "node", join(here, "cli/warpstart.mts"), ...process.argv.slice(2)], {
    stdio: "inherit",
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
}
