#!/usr/bin/env node
// The `warpstart` program as npm links it, on whichever Node runs npm (18 or later): plain
// JavaScript that finds the package's home, installs the pinned tools every command needs there
// (scripts/setup.sh base: Node 22, SAM CLI and moto, the SDK trees; said once, with their sizes)
// and runs cli/warpstart.mts on that Node 22, in the folder it was started in.
//
// The home is the package's own folder, unless that is inside node_modules (an app installed the
// package): Node strips TypeScript's types only outside node_modules, and the tools the package
// installs belong beside its code, not in the app's tree. Then the home is a copy of the package in
// the user's cache, one per version and content, made on first use.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const here = realpathSync(dirname(fileURLToPath(import.meta.url)));
const say = (line) => process.stderr.write(`[warpstart] ${line}\n`);

/** The package's files (not what installs put beside them), in a stable order. */
function packageFiles(dir, into = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) packageFiles(path, into);
    else if (entry.isFile()) into.push(path);
  }
  return into;
}

/**
 * The copy of the package outside node_modules, made if it is not there yet: in WARPSTART_HOME when
 * set (a CI cache, or a home whose tools are placed there first), else one per version and content
 * in the user's cache. A home made from other contents (WARPSTART_HOME kept across an upgrade) takes
 * the package's files again.
 */
function homeOf(pkg) {
  const { version } = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
  const hash = createHash("sha256");
  for (const file of packageFiles(pkg)) hash.update(relative(pkg, file)).update("\0").update(readFileSync(file));
  const contents = `${version}-${hash.digest("hex").slice(0, 12)}`;
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  const home = process.env.WARPSTART_HOME || join(cache, "warpstart", contents);
  const stamp = join(home, ".warpstart-package");
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === contents) return home;
  say(
    `${existsSync(stamp) ? "warpstart changed" : `first use of warpstart ${version}`}: its home is ${home} (a copy of the package, where its pinned tools install)`,
  );
  // File by file: a home may hold its tools already (links to folders), which are not the package's files.
  const copy = (into) => {
    for (const file of packageFiles(pkg)) {
      const to = join(into, relative(pkg, file));
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(file, to);
    }
    writeFileSync(join(into, ".warpstart-package"), contents);
  };
  if (existsSync(home)) {
    copy(home);
    return home;
  }
  mkdirSync(dirname(home), { recursive: true });
  const scratch = `${home}.${process.pid}`;
  copy(scratch);
  try {
    renameSync(scratch, home);
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    if (!existsSync(home)) throw error; // else another run made it first
  }
  return home;
}

const home = here.split(sep).includes("node_modules") ? homeOf(here) : here;
const child = spawn("bash", [join(home, "scripts/with-tools.sh"), "--parts", "base", "node", join(home, "cli/warpstart.mts"), ...process.argv.slice(2)], {
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
