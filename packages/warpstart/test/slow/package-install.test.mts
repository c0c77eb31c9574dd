// The package as a SAM app meets it: the tarball `npm pack` makes, installed with npm from its cache
// (--offline: nothing leaves the machine) into a copy of the adopt fixture app (SAM's esbuild and
// npm builders), then `npx warpstart adopt`, the real `sam build` and `npx warpstart invoke` of each
// adopted function in the lab; and an app `sam init` makes from the repository's starter, built,
// invoked and tested the same way. Its home is a folder of the test's (WARPSTART_HOME) where the
// repository's pinned Node, venv and arm64 tools are placed first, as a second run finds them: what
// the first use copies and installs beside them is the package, its dependencies and its SDK trees.
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { NODE22, PACKAGE_ROOT, VENV_BIN } from "../../core/paths.mts";
import { DEMO_ROOT } from "../support/demo.mts";

const work = mkdtempSync(join(tmpdir(), "warpstart-package-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const app = join(work, "app");
const home = join(work, "home");
const npm = join(dirname(NODE22), "npm");
const npx = join(dirname(NODE22), "npx");
const ENV = {
  ...process.env,
  PATH: [dirname(NODE22), VENV_BIN, process.env.PATH].join(":"),
  WARPSTART_HOME: home,
  npm_config_offline: "true",
  npm_config_audit: "false",
  npm_config_fund: "false",
  SAM_CLI_TELEMETRY: "0",
  CI: "true",
};
const run = (cwd: string, command: string, args: string[], timeout = 600_000) => spawnSync(command, args, { cwd, env: ENV, encoding: "utf8", timeout });
const outputOf = (ran: SpawnSyncReturns<string>) => ({ status: ran.status, output: `${ran.stdout}\n${ran.stderr}`.slice(-4000) });

let adopt: SpawnSyncReturns<string>;
let tarball: string;
beforeAll(() => {
  const pack = run(PACKAGE_ROOT, npm, ["pack", "--pack-destination", work, "--loglevel=error"]);
  expect(outputOf(pack)).toMatchObject({ status: 0 });
  cpSync(join(PACKAGE_ROOT, "test/fixtures/sam-apps/adopt"), app, { recursive: true });
  writeFileSync(join(app, "package.json"), `${JSON.stringify({ name: "adopt-app", private: true }, null, 2)}\n`);
  // The tools a home installs first, as they are here (each one's stamp says so): what a second project's first use finds.
  mkdirSync(join(home, "tools"), { recursive: true });
  for (const tool of [".venv", "tools/node22", "tools/lambda-arm64", "tools/arm64"]) symlinkSync(join(PACKAGE_ROOT, tool), join(home, tool));
  tarball = join(work, readdirSync(work).find((name) => name.endsWith(".tgz"))!);
  const install = run(app, npm, ["install", "--save-dev", tarball]);
  expect(outputOf(install)).toMatchObject({ status: 0 });
  // The function's own dependency (@aws-sdk/client-dynamodb), installed as npm leaves it: the repository's tree has that very version.
  symlinkSync(join(PACKAGE_ROOT, "../../node_modules"), join(app, "orders/node_modules"));
  adopt = run(app, npx, ["--no-install", "warpstart", "adopt"]);
}, 900_000);

it("npm install of the tarball gives the app the warpstart program and the rule its Makefiles include", () => {
  expect(existsSync(join(app, "node_modules/.bin/warpstart"))).toBe(true);
  expect(existsSync(join(app, "node_modules/warpstart/warpstart.mk"))).toBe(true);
  expect(JSON.parse(readFileSync(join(app, "package.json"), "utf8")).devDependencies.warpstart).toMatch(/warpstart-.*\.tgz$/);
});

it("the first use makes the package's home outside node_modules and installs there, saying where and how big", () => {
  expect(outputOf(adopt)).toMatchObject({ status: 0 });
  expect(adopt.stderr).toContain(`[warpstart] first use of warpstart `);
  expect(adopt.stderr).toContain(`its home is ${home}`);
  expect(adopt.stderr).toMatch(/\[setup\] installed: tools\/dependencies\/node_modules \d+M, published\/node_modules \d+M/);
  expect(existsSync(join(home, "cli/warpstart.mts"))).toBe(true);
  expect(existsSync(join(home, "published/node_modules/.warpstart-stamp"))).toBe(true);
  expect(adopt.stdout).toContain("Orders: adopted as Warp");
  expect(adopt.stdout).toContain("Hello: adopted as Warp");
  expect(adopt.stdout).toContain("samconfig.toml: set build_in_source = true");
});

// SAM builds a container image only with Docker: each adopted function is built by name, as a user without Docker does, in
// source as adopt's line says (else SAM copies the CodeUri folder, node_modules and all, first).
it.each([
  ["Orders", /built Orders \(Warp\): .*app\.mjs .*V8 code cache/, '"statusCode":404'],
  ["Hello", /built Hello \(Warp\): .*app\.cjs .*V8 code cache/, '"statusCode":200'],
])("sam build %s runs the package's rule from the app's node_modules, and npx warpstart invoke answers in the lab", (id, built, answer) => {
  const build = run(app, join(VENV_BIN, "sam"), ["build", id, "--build-in-source"]);
  expect(outputOf(build)).toMatchObject({ status: 0 });
  expect(build.stdout + build.stderr).toMatch(built);
  const invoke = run(app, npx, ["--no-install", "warpstart", "invoke", id], 300_000);
  expect(outputOf(invoke)).toMatchObject({ status: 0 });
  expect(invoke.stdout.replace(/\s/g, "")).toContain(answer);
  expect(invoke.stderr).not.toContain("first use");
});

it("sam init --location of the starter renders an app whose build, invoke and own test pass", () => {
  const context = JSON.stringify({ project_name: "hello-warp", warpstart: `file:${tarball}` });
  const init = run(work, join(VENV_BIN, "sam"), ["init", "--location", join(DEMO_ROOT, "starter"), "--no-input", "--extra-context", context]);
  expect(outputOf(init)).toMatchObject({ status: 0 });
  const starter = join(work, "hello-warp");
  expect(outputOf(run(starter, npm, ["install"]))).toMatchObject({ status: 0 });
  const build = run(starter, join(VENV_BIN, "sam"), ["build"]);
  expect(outputOf(build)).toMatchObject({ status: 0 });
  expect(build.stdout + build.stderr).toMatch(/built HelloFunction \(Warp\): .*app\.mjs .*V8 code cache/);
  const invoke = run(starter, npx, ["--no-install", "warpstart", "invoke", "HelloFunction"], 300_000);
  expect(outputOf(invoke)).toMatchObject({ status: 0 });
  expect(JSON.parse(JSON.parse(invoke.stdout).body)).toEqual({ message: "Hello from INIT" });
  const test = run(starter, npm, ["test"]);
  expect(outputOf(test)).toMatchObject({ status: 0 });
  expect(test.stdout).toContain("# pass 2");
});
