// `warpstart` on a bad command line, as a user meets it: the mistake, the usage, exit 2, and
// nothing started. The declarations' own checks are unit-tested (test/unit/cli.test.mts); these are
// the mistakes found only by reading the template, and the program's own.
import { spawnSync } from "node:child_process";
import { NODE22 } from "../../core/paths.mts";
import { DEMO_ROOT } from "../support/demo.mts";
import { WARPSTART } from "../support/warpstart.mts";

const warpstart = (...args: string[]) => spawnSync(NODE22, [WARPSTART, ...args], { cwd: DEMO_ROOT, encoding: "utf8", timeout: 30_000 });

it.each([
  [["lab", "--bogus"], "error: Unknown option '--bogus'", "usage: warpstart lab"],
  [["lab", "--no-build", "--network", "fast"], 'error: --network: "fast" is not a network: use lambda', "usage: warpstart lab"],
  [["phases", "--no-build", "--variants", "Warp,Nope"], "error: Nope is not a function of template.yaml; its functions: Raw,", "usage: warpstart phases"],
  [["aws", "--template", "README.md"], "is not valid YAML", undefined],
  [
    ["aws", "--parameter-overrides", "Runtime=node22 Stage"],
    'error: --parameter-overrides: "Stage" is neither Name=Value nor ParameterKey=Name,ParameterValue=Value',
    "usage: warpstart aws",
  ],
  [
    ["invoke", "Hello", "--parameter-overrides", "ParameterKey=Stage,ParameterValue=prod"],
    "error: --parameter-overrides: the template declares no parameter Stage; its parameters: Runtime, ProvisionedConcurrency, WarpRuntimeVersionArn, LogRetentionInDays",
    "usage: warpstart invoke",
  ],
  [["deploy"], 'error: warpstart has no command "deploy"', "usage: warpstart <command>"],
])("warpstart %j says so and exits", (args, message, usage) => {
  const run = warpstart(...args);
  expect(run.status).toBe(usage ? 2 : 1);
  expect(run.stderr).toContain(message);
  if (usage) expect(run.stderr).toContain(usage);
  expect(run.stdout).not.toContain("listening");
});

it("warpstart --help lists every command, and each command's --help its usage", () => {
  const overview = warpstart("--help");
  expect(overview.status).toBe(0);
  const names = [...overview.stdout.matchAll(/^ {2}(\S+) /gm)].map((match) => match[1]);
  expect(names).toEqual(["invoke", "lab", "aws", "bench", "doctor", "adopt", "load", "phases", "keepalive", "warp:pin", "build"]);
  const help = warpstart("doctor", "--help");
  expect(help.status).toBe(0);
  expect(help.stdout).toContain("usage: warpstart doctor [--template FILE]");
});
