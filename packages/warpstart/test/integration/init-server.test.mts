// The long-lived Node that runs the build-time INITs under qemu (builder/init-server.mts): each
// INIT in a Worker of its own, with the function's environment and folder, one server per Node and
// process-wide environment. Shown here on this machine's Node (the arm64 one under qemu is the
// same program: build.test.mts's arm64 builds make their caches in it, and check them in a Node of
// their own); and, under qemu, an INIT that does what a Worker may not.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildResource } from "../../builder/build.mts";
import { BUILD_CACHE_VARIABLE } from "../../builder/build-cache.mts";
import { initInServer, initServerOf } from "../../builder/init-server.mts";
import { ownLocalAws } from "../../emulation/local-aws/build-services.mts";
import { DEMO_ROOT } from "../support/demo.mts";

let dir: string;
const node = [process.execPath, "--max-semi-space-size=25"];
/** What the handler's INIT saw: the process it ran in, its environment and folder, and its time zone. */
const seen = (output: string) => JSON.parse(output.split("\n").find((line) => line.startsWith("{"))!) as Record<string, string | number>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "warpstart-init-server-"));
  for (const name of ["a", "b"]) mkdirSync(join(dir, name));
  writeFileSync(
    join(dir, "reports.mjs"),
    `import { isMainThread } from "node:worker_threads";
console.log(JSON.stringify({ pid: process.pid, mainThread: isMainThread, fn: process.env.FN, cwd: process.cwd(), offset: new Date(0).getTimezoneOffset(), preloaded: globalThis.preloaded ?? null }));
export const handler = async () => "ok";
`,
  );
  writeFileSync(join(dir, "throws.mjs"), 'throw new TypeError("INIT failed here");\n');
  writeFileSync(join(dir, "preload.cjs"), "globalThis.preloaded = process.env.FN;\n");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const request = (handler: string, cwd: string, env: Record<string, string>) => ({
  argv: ["write", join(dir, handler), join(cwd, "verdict"), "{}"],
  env: { TZ: ":UTC", ...env },
  cwd,
  timeoutMs: 30_000,
});

it("runs each INIT in a Worker of one long-lived Node, with that function's environment and folder", async () => {
  const first = await initInServer(node, request("reports.mjs", join(dir, "a"), { FN: "First" }));
  const second = await initInServer(node, request("reports.mjs", join(dir, "b"), { FN: "Second" }));
  expect([first.code, second.code]).toEqual([0, 0]);
  expect(seen(first.output)).toMatchObject({ mainThread: false, fn: "First", cwd: join(dir, "a") });
  expect(seen(second.output)).toMatchObject({ mainThread: false, fn: "Second", cwd: join(dir, "b") });
  expect(seen(second.output).pid).toBe(seen(first.output).pid);
  // Each in the Worker made ahead (as the server started, then after the first INIT): it got its function's arguments.
  expect([first.spare, second.spare]).toEqual([true, true]);
  expect(readFileSync(join(dir, "b", "verdict"), "utf8")).toBe("not loaded");
  expect(seen(first.output).pid).not.toBe(process.pid);
  // The child's verdict, as from a Node of its own: this handler loads no chunk.
  expect(readFileSync(join(dir, "a", "verdict"), "utf8")).toBe("not loaded");
}, 60_000);

it("starts a server of its own for another time zone, which a Worker cannot have on its own", async () => {
  const utc = await initInServer(node, request("reports.mjs", join(dir, "a"), {}));
  const tokyo = await initInServer(node, request("reports.mjs", join(dir, "a"), { TZ: "Asia/Tokyo" }));
  expect(seen(utc.output).offset).toBe(0);
  expect(seen(tokyo.output).offset).toBe(-540);
  expect(seen(tokyo.output).pid).not.toBe(seen(utc.output).pid);
  expect(initServerOf(node, { TZ: "Asia/Tokyo" }).socket).not.toBe(initServerOf(node, { TZ: ":UTC" }).socket);
}, 60_000);

it("loads what the function's NODE_OPTIONS preloads (the lab's outbound guard) into its Worker before INIT", async () => {
  const preload = `--require=${join(dir, "preload.cjs")}`;
  const first = await initInServer(node, request("reports.mjs", join(dir, "a"), { FN: "Guarded", NODE_OPTIONS: preload }));
  const second = await initInServer(node, request("reports.mjs", join(dir, "a"), { FN: "Again", NODE_OPTIONS: preload }));
  expect(seen(first.output)).toMatchObject({ mainThread: false, preloaded: "Guarded" });
  // The Worker made ahead loads them once the INIT's environment is known, not as it starts.
  expect(second.spare).toBe(true);
  expect(seen(second.output)).toMatchObject({ mainThread: false, preloaded: "Again" });
}, 60_000);

it("gives the Worker made ahead the module paths of the INIT it runs (NODE_PATH holds the task root)", async () => {
  for (const name of ["x", "y"]) {
    mkdirSync(join(dir, name, name), { recursive: true });
    writeFileSync(join(dir, name, name, "index.cjs"), `module.exports = ${JSON.stringify(name)};\n`);
    writeFileSync(join(dir, name, name, "package.json"), '{ "main": "index.cjs" }\n');
  }
  writeFileSync(
    join(dir, "finds.mjs"),
    `import { createRequire } from "node:module";\nconsole.log(JSON.stringify({ found: createRequire(import.meta.url)(process.env.FIND) }));\n`,
  );
  const find = async (name: string) => initInServer(node, request("finds.mjs", join(dir, "a"), { NODE_PATH: join(dir, name), FIND: name }));
  expect(seen((await find("x")).output)).toEqual({ found: "x" });
  const other = await find("y");
  expect(other.spare).toBe(true);
  expect(seen(other.output)).toEqual({ found: "y" });
}, 60_000);

it("makes a Worker of its own for an INIT whose NODE_ variables, read as a Worker starts, differ from the one made ahead", async () => {
  writeFileSync(join(dir, "debugs.mjs"), `import { debuglog } from "node:util";\nconsole.log(JSON.stringify({ debugs: debuglog("warpstart").enabled }));\n`);
  await initInServer(node, request("debugs.mjs", join(dir, "a"), {}));
  const debugging = await initInServer(node, request("debugs.mjs", join(dir, "a"), { NODE_DEBUG: "warpstart" }));
  expect(debugging.spare).toBe(false);
  expect(seen(debugging.output)).toEqual({ debugs: true });
}, 60_000);

it("answers an INIT that throws with a failed exit and the error, which the build's message quotes", async () => {
  const answer = await initInServer(node, request("throws.mjs", join(dir, "a"), {}));
  expect(answer.code).not.toBe(0);
  expect(answer.output).toMatch(/^TypeError: INIT failed here$/m);
}, 60_000);

it("builds the arm64 cache of an INIT that changes its folder, which a Worker may not, in a Node of its own", async () => {
  const app = join(dir, "app");
  mkdirSync(join(app, "src"), { recursive: true });
  writeFileSync(
    join(app, "template.yaml"),
    `Transform: AWS::Serverless-2016-10-31
Resources:
  Moves:
    Type: AWS::Serverless::Function
    Metadata: { BuildMethod: makefile, BuildProperties: { Profile: Warp } }
    Properties: { Runtime: nodejs22.x, Architectures: [arm64], MemorySize: 512, CodeUri: ., Handler: src/index.handler }
`,
  );
  writeFileSync(
    join(app, "src/index.mjs"),
    `import { STSClient } from "@aws-sdk/client-sts";
process.chdir(import.meta.dirname);
const sts = new STSClient({});
export const handler = async () => sts.config.serviceId;
`,
  );
  symlinkSync(join(DEMO_ROOT, "node_modules"), join(app, "node_modules"));
  const saved = process.env[BUILD_CACHE_VARIABLE];
  process.env[BUILD_CACHE_VARIABLE] = "off";
  try {
    const said = await buildResource(join(app, "template.yaml"), "Moves", join(app, "out"), ownLocalAws);
    expect(said).toMatch(/built Moves \(Warp\): .*V8 code cache [\d.]+ KiB/);
    expect(said).not.toContain("built as Optimized");
    expect(said).not.toContain("until it failed");
    expect(readFileSync(join(app, "out/src/sdk.arm64.cache")).length).toBeGreaterThan(0);
  } finally {
    if (saved === undefined) delete process.env[BUILD_CACHE_VARIABLE];
    else process.env[BUILD_CACHE_VARIABLE] = saved;
  }
}, 150_000);
