// src/warp/warp-exec, the exec wrapper: what it passes on of the command Lambda's bootstrap gives
// it, with printf standing in for node (test/integration/exec-wrapper.test.mts runs it with node).
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { RUNTIMES } from "../../core/runtimes.mts";

const WRAPPER = join(PACKAGE_ROOT, "src/warp/warp-exec");
const ENTRY = "/var/runtime/index.mjs";

/** The arguments the wrapper execs its first argument with, one per line. */
function passedOn(lambdaRuntime: string, args: string[]): string[] {
  const out = execFileSync(WRAPPER, ["/usr/bin/printf", ...args], { env: { AWS_EXECUTION_ENV: `AWS_Lambda_${lambdaRuntime}` }, encoding: "utf8" });
  return out.split("\n").slice(0, -1);
}

it("on nodejs22.x drops --expose-gc and the heap limits, keeps the Node flags, the entry and arguments with spaces as they are", () => {
  const flags = RUNTIMES.node22.nodeFlags(512);
  expect(passedOn("nodejs22.x", ["%s\\n", ...flags, "an argument with spaces", ENTRY])).toEqual([
    "--max-http-header-size=81920",
    "--no-experimental-require-module",
    "--no-experimental-detect-module",
    "an argument with spaces",
    ENTRY,
  ]);
});

it("on nodejs24.x drops only --expose-gc: Node 24's V8 leaves heap sizes out of its code caches' flag hash", () => {
  expect(passedOn("nodejs24.x", ["%s\\n", ...RUNTIMES.node24.nodeFlags(512), ENTRY])).toEqual([
    "--max-http-header-size=81920",
    "--max-semi-space-size=25",
    "--max-old-space-size=461",
    ENTRY,
  ]);
});
