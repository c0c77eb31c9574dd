// The package as a SAM app meets it: the tarball `npm pack` makes (JavaScript, built before packing),
// installed with npm from its cache (--offline: nothing leaves the machine) into a copy of the adopt
// fixture app (SAM's esbuild and npm builders), then `npx warpstart adopt`, the real `sam build`
// and `npx warpstart invoke` of each adopted function in the lab, on the newest Node the package
// supports and the oldest (22.12.0, setup's node-oldest); and an app `sam init` makes from the repository's starter, built,
// invoked and tested the same way. SAM CLI is the user's, on PATH. The tools' home (WARPSTART_HOME)
// is a folder of the test's where the repository's pinned Nodes, venv and arm64 tools are placed
// first, as a second app's first use finds them: what the commands install beside them is said.
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { NODE22, PACKAGE_ROOT, toolPath, VENV_BIN } from "../../core/paths.mts";
import { RUNTIMES } from "../../core/runtimes.mts";
import { DEMO_ROOT } from "../support/demo.mts";

const work = mkdtempSync(join(tmpdir(), "warpstart-package-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const app = join(work, "app");
const home = join(work, "home");
const npm = join(dirname(NODE22), "npm");
const npx = join(dirname(NODE22), "npx");
/** The oldest Node the package runs on (its engines), as setup's node-oldest installs it. */
const OLDEST_NODE = toolPath("tools/node-oldest/node_modules/.bin/node");
/** The environment of a user whose PATH has `node` first and SAM CLI (the venv's bin: its sam, and nothing of warpstart's on PATH but that). */
const userEnv = (node: string) => ({
  ...process.env,
  PATH: [dirname(node), VENV_BIN, "/usr/bin", "/bin"].join(":"),
  WARPSTART_HOME: home,
  npm_config_offline: "true",
  npm_config_audit: "false",
  npm_config_fund: "false",
  SAM_CLI_TELEMETRY: "0",
  CI: "true",
});
const run = (cwd: string, command: string, args: string[], { node = NODE22, timeout = 600_000, env = {} as Record<string, string> } = {}) =>
  spawnSync(command, args, { cwd, env: { ...userEnv(node), ...env }, encoding: "utf8", timeout });
const outputOf = (ran: SpawnSyncReturns<string>) => ({ status: ran.status, output: `${ran.stdout}\n${ran.stderr}`.slice(-4000) });
const filesUnder = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: "utf8" }) : []);

let adopt: SpawnSyncReturns<string>;
let tarball: string;
/** An empty tools home and user cache for adopt: what it leaves there. */
const adoptHome = join(work, "adopt-home");
beforeAll(() => {
  const pack = run(PACKAGE_ROOT, npm, ["pack", "--pack-destination", work, "--loglevel=error"]);
  expect(outputOf(pack)).toMatchObject({ status: 0 });
  cpSync(join(PACKAGE_ROOT, "test/fixtures/sam-apps/adopt"), app, { recursive: true });
  writeFileSync(join(app, "package.json"), `${JSON.stringify({ name: "adopt-app", private: true }, null, 2)}\n`);
  // The tools a home installs first, as they are here (each one's stamp says so): what a second project's first use finds.
  mkdirSync(join(home, "tools"), { recursive: true });
  for (const tool of [".venv", "tools/node22", "tools/node22-arm64", "tools/node24", "tools/arm64"]) symlinkSync(join(PACKAGE_ROOT, tool), join(home, tool));
  tarball = join(work, readdirSync(work).find((name) => name.endsWith(".tgz"))!);
  const install = run(app, npm, ["install", "--save-dev", tarball]);
  expect(outputOf(install)).toMatchObject({ status: 0 });
  // The function's own dependency (@aws-sdk/client-dynamodb), installed as npm leaves it: the repository's tree has that very version.
  symlinkSync(join(PACKAGE_ROOT, "../../node_modules"), join(app, "orders/node_modules"));
  mkdirSync(adoptHome);
  adopt = run(app, npx, ["--no-install", "warpstart", "adopt"], { env: { WARPSTART_HOME: adoptHome, XDG_CACHE_HOME: adoptHome } });
}, 900_000);

it("npm install of the tarball gives the app the warpstart program, the rule its Makefiles include, and JavaScript to run", () => {
  const installed = join(app, "node_modules/warpstart");
  expect(existsSync(join(app, "node_modules/.bin/warpstart"))).toBe(true);
  expect(existsSync(join(installed, "warpstart.mk"))).toBe(true);
  expect(JSON.parse(readFileSync(join(app, "package.json"), "utf8")).devDependencies.warpstart).toMatch(/warpstart-.*\.tgz$/);
  const files = filesUnder(installed).filter((file) => !file.startsWith("node_modules"));
  expect(files).toEqual(expect.arrayContaining(["cli/warpstart.mjs", "src/contract.mjs", "src/contract.d.mts"]));
  expect(files.filter((file) => file.endsWith(".mts") && !file.endsWith(".d.mts"))).toEqual([]);
  // The package's checkout is left as it was: its JavaScript and the packed manifest undone.
  expect(existsSync(join(PACKAGE_ROOT, "cli/warpstart.mjs"))).toBe(false);
  expect(JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")).exports["./contract"]).toBe("./src/contract.mts");
});

it("adopt runs from node_modules and installs nothing: no download said, nothing in the tools' home or the user's cache", () => {
  expect(outputOf(adopt)).toMatchObject({ status: 0 });
  expect(adopt.stderr).not.toContain("[setup]");
  expect(adopt.stdout).toContain("Orders: adopted as Warp");
  expect(adopt.stdout).toContain("Hello: adopted as Warp");
  expect(adopt.stdout).toContain("samconfig.toml: set build_in_source = true");
  expect(filesUnder(adoptHome)).toEqual([]);
});

it("on a Node older than its engines allow, says which it needs and which it found, and runs nothing", () => {
  const old = RUNTIMES.node18.hostBinary;
  const ran = run(app, old, [join(app, "node_modules/.bin/warpstart"), "adopt"]);
  expect(ran.status).toBe(1);
  expect(ran.stderr.trim()).toBe(
    `[warpstart] error: warpstart runs on Node >=22.12; this is Node ${RUNTIMES.node18.version} (${realpathSync(old)}). Install a newer Node, or put one first on PATH.`,
  );
});

// SAM builds a container image only with Docker: each adopted function is built by name, as a user without Docker does, in
// source as adopt's line says (else SAM copies the CodeUri folder, node_modules and all, first). What a command downloads
// first is said before it does: Hello's build warpstart's own SDK tree (the app installs none), the lab's first invoke the
// runtimes' trees (its stand-ins of Lambda's runtimes); the next build and invoke download nothing.
it.each([
  [
    "Hello",
    "24",
    RUNTIMES.node24.hostBinary,
    /built Hello \(Warp\): .*app\.cjs .*V8 code cache/,
    "[setup] downloading the SDK tree published",
    '"statusCode":200',
    "[setup] downloading the SDK tree emulation/runtime/node22",
  ],
  ["Orders", "22.12", OLDEST_NODE, /built Orders \(Warp\): .*app\.mjs .*V8 code cache/, null, '"statusCode":404', null],
])(
  "sam build %s runs the package's rule from the app's node_modules on Node %s, and npx warpstart invoke answers in the lab",
  (id, _major, node, built, buildSays, answer, invokeSays) => {
    const build = run(app, join(VENV_BIN, "sam"), ["build", id, "--build-in-source"], { node });
    expect(outputOf(build)).toMatchObject({ status: 0 });
    // SAM logs what the build printed (its stdout) on its own stderr, as it runs.
    expect(build.stderr).toMatch(built);
    if (buildSays) expect(build.stderr).toContain(buildSays);
    const invoke = run(app, npx, ["--no-install", "warpstart", "invoke", id], { node, timeout: 300_000 });
    expect(outputOf(invoke)).toMatchObject({ status: 0 });
    expect(invoke.stdout.replace(/\s/g, "")).toContain(answer);
    if (invokeSays) expect(invoke.stderr).toContain(invokeSays);
    else expect(invoke.stderr).not.toContain("[setup] downloading");
  },
);

it("sam init --location of the starter renders an app whose build, invoke and own test pass", () => {
  const context = JSON.stringify({ project_name: "hello-warp", warpstart: `file:${tarball}` });
  const init = run(work, join(VENV_BIN, "sam"), ["init", "--location", join(DEMO_ROOT, "starter"), "--no-input", "--extra-context", context]);
  expect(outputOf(init)).toMatchObject({ status: 0 });
  const starter = join(work, "hello-warp");
  expect(outputOf(run(starter, npm, ["install"]))).toMatchObject({ status: 0 });
  const build = run(starter, join(VENV_BIN, "sam"), ["build"]);
  expect(outputOf(build)).toMatchObject({ status: 0 });
  expect(build.stdout + build.stderr).toMatch(/built HelloFunction \(Warp\): .*app\.mjs .*V8 code cache/);
  const invoke = run(starter, npx, ["--no-install", "warpstart", "invoke", "HelloFunction"], { timeout: 300_000 });
  expect(outputOf(invoke)).toMatchObject({ status: 0 });
  expect(JSON.parse(JSON.parse(invoke.stdout).body)).toEqual({ message: "Hello from INIT" });
  const test = run(starter, npm, ["test"]);
  expect(outputOf(test)).toMatchObject({ status: 0 });
  expect(test.stdout).toContain("# pass 2");
});
