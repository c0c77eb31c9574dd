// What a contributor sees when the machine lacks a prerequisite of scripts/setup.sh: one line that
// names it and how to install it, before anything is installed. Each case runs the script with a
// PATH of stand-ins (the tools it needs, the one missing or broken left out), so nothing is fetched.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../../core/paths.mts";

let bin: string;
beforeEach(() => {
  bin = mkdtempSync(join(tmpdir(), "warpstart-setup-path-"));
  // What the script runs before its checks: its own folder's path, and the machine's npm (a stand-in that must not run).
  symlinkSync("/usr/bin/dirname", join(bin, "dirname"));
  stub("npm", 'echo "npm ran" >&2; exit 9');
});
afterEach(() => rmSync(bin, { recursive: true, force: true }));

/** A command on the stand-in PATH that runs `script`. */
function stub(name: string, script: string): void {
  writeFileSync(join(bin, name), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
}

const setup = (...parts: string[]) =>
  spawnSync("/bin/bash", [join(PACKAGE_ROOT, "scripts/setup.sh"), ...parts], { env: { PATH: bin, HOME: bin }, encoding: "utf8" });

it.each([
  ["python3", () => undefined, "[setup] error: python3 is not installed. Install Python 3.9-3.13 (Debian: apt-get install python3 python3-venv)."],
  [
    "python3's venv",
    () => stub("python3", "exit 1"),
    "[setup] error: python3's venv module cannot make a venv with pip (Debian: apt-get install python3-venv).",
  ],
  [
    "make",
    () => stub("python3", "exit 0"),
    "[setup] error: make is not installed. Install make (Debian: apt-get install make); SAM's makefile builder runs it.",
  ],
  [
    "a C++ compiler",
    () => {
      stub("python3", "exit 0");
      stub("make", "exit 0");
    },
    "[setup] error: no C++ compiler: the runtime interface client is a native addon (Debian: apt-get install g++).",
  ],
])("without %s: one line naming it and the package that installs it, and nothing installed", (_missing, prepare, message) => {
  prepare();
  const run = setup();
  expect(run.status).toBe(1);
  expect(run.stderr.trim()).toBe(message);
});

it("an unknown part: the parts it has, and nothing installed", () => {
  const run = setup("base", "deno");
  expect(run.status).toBe(1);
  expect(run.stderr.trim()).toBe(
    '[setup] error: unknown part "deno": the parts are node18, node20, node22, node24, node18-arm64, node20-arm64, node22-arm64, node24-arm64, sam, moto, published, runtime-trees, base, npm-cache, node-oldest, sdk-oldest, runtimes, runtimes-arm64, hyperfine, artillery and all',
  );
});
