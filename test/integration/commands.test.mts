// The lab's own commands (npm run lab, npm run aws, npm run invoke, npm run bench) on a bad command line: the mistake, the
// usage, exit 2, and nothing started.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { NODE22, PROJECT_ROOT } from "../../core/paths.mts";

const command = (script: string, ...args: string[]) =>
  spawnSync(NODE22, [join(PROJECT_ROOT, script), ...args], { cwd: PROJECT_ROOT, encoding: "utf8", timeout: 30_000 });

it.each([
  ["lab/start-lab.mts", ["--bogus"], "error: Unknown option '--bogus'", "usage: npm run lab"],
  [
    "lab/start-lab.mts",
    ["--no-build", "--runtime", "quickjs"],
    'error: --runtime must be one of node22, node24, deno, bun (the template\'s Runtime parameter), not "quickjs"',
    "usage: npm run lab",
  ],
  ["lab/start-lab.mts", ["--no-build", "--idle-timeout", "0"], 'error: --idle-timeout must be a whole number from 1, not "0"', "usage: npm run lab"],
  ["lab/start-lab.mts", ["--no-build", "--network", "fast"], 'error: --network: "fast" is not a network: use lambda', "usage: npm run lab"],
  ["bench/cli.mts", ["--no-build", "--code-loading", "cold"], 'error: --code-loading must be lambda, artifact or none, not "cold"', "usage: npm run bench"],
  [
    "bench/cli.mts",
    ["--stack", "warpstart", "--network", "none"],
    "error: --network and --code-loading set up the local lab; a --stack runs on Lambda itself",
    "usage: npm run bench",
  ],
  ["bench/phases.mts", ["--no-build", "--variants", "Warp,Nope"], "error: unknown function(s) Nope; template.yaml has Raw,", "usage: npm run phases"],
  ["bench/phases.mts", ["--no-build", "--rounds", "0"], 'error: --rounds must be a whole number from 1 to 1000, not "0"', "usage: npm run phases"],
  ["lab/serve-aws.mts", ["--port", "http"], 'error: --port must be a whole number from 1 to 65535, not "http"', "usage: npm run aws"],
  ["lab/serve-aws.mts", ["--template", "README.md"], "is not valid YAML", undefined],
  [
    "lab/serve-aws.mts",
    ["--parameter-overrides", "Runtime=node22 Stage"],
    'error: --parameter-overrides: "Stage" is neither Name=Value nor ParameterKey=Name,ParameterValue=Value',
    "usage: npm run aws",
  ],
  [
    "lab/invoke.mts",
    ["Hello", "--parameter-overrides", "ParameterKey=Stage,ParameterValue=prod"],
    "error: --parameter-overrides: the template declares no parameter Stage; its parameters: Runtime, ProvisionedConcurrency, WarpRuntimeVersionArn, LogRetentionInDays",
    "usage: npm run invoke",
  ],
  [
    "bench/cli.mts",
    ["--stack", "warpstart", "--parameter-overrides", "Runtime=node24"],
    "error: --parameter-overrides sets up the local lab; a --stack runs with the values it was deployed with",
    "usage: npm run bench",
  ],
])("%s %j says so and exits", (script, args, message, usage) => {
  const run = command(script, ...args);
  expect(run.status).toBe(usage ? 2 : 1);
  expect(run.stderr).toContain(message);
  if (usage) expect(run.stderr).toContain(usage);
  expect(run.stdout).not.toContain("listening");
});
