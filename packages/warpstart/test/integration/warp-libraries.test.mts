// Warp's chunk holds the packages a handler imports, not only the SDK (builder/sdk.mts): the
// warp-libraries app's functions, one package of each shape, answer in the lab as Warp exactly as
// they do as Optimized, with V8 taking the cache; a package CommonJS cannot hold stays in the
// handler's bundle, saying so; the arm64 Node takes the arm64 cache of a function with packages and
// no SDK; each worker thread that imports the handler takes the cache too; and a cache from another
// build of the chunk is refused.
import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type BuildResult, buildFunction, functionBuild } from "../../builder/build.mts";
import { NODE22, PACKAGE_ROOT } from "../../core/paths.mts";
import { execOwned } from "../../core/processes.mts";
import { nodeFor, RUNTIMES } from "../../core/runtimes.mts";
import { readTemplate, type TemplateFunction } from "../../core/template.mts";
import { prepareTaskRoot, removeTaskRoot } from "../../emulation/function-environment.mts";
import { ownLocalAws } from "../../emulation/local-aws/build-services.mts";
import { type Lab, startLab } from "../../lab/lab.mts";
import { CACHE_OF_ANOTHER_BUILD, CACHE_REJECTED, CODE_CACHE_STATUS, SDK_CHUNK_FILE } from "../../src/contract.mts";
import { invokeLogged } from "../support/lab.mts";

const TEMPLATE = join(PACKAGE_ROOT, "test/fixtures/sam-apps/warp-libraries/template.yaml");
const FUNCTIONS = ["Libraries", "LibrariesCjs", "LibraryAwaits"];
const PROFILES = ["Optimized", "Warp"];

const template = readTemplate(TEMPLATE);
const builds = new Map<string, BuildResult & { fn: TemplateFunction }>();
let scratch: string;
let lab: Lab;
beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "warpstart-warp-libraries-"));
  for (const logicalId of FUNCTIONS) {
    for (const profile of PROFILES) {
      const codeDir = join(scratch, `${logicalId}-${profile}`);
      const result = await buildFunction(functionBuild(template, logicalId, profile), codeDir, { initServices: ownLocalAws });
      const fn = template.functions.find((candidate) => candidate.logicalId === logicalId)!;
      builds.set(`${logicalId}-${profile}`, { ...result, fn: { ...fn, logicalId: `${logicalId}-${profile}`, codeDir } });
    }
  }
  lab = await startLab({ template: TEMPLATE, only: [], extraFunctions: [...builds.values()].map(({ fn }) => fn) });
}, 300_000);
afterAll(async () => {
  await lab?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const chunkOf = (name: string) =>
  readFileSync(join(builds.get(name)!.fn.codeDir, "src", name.startsWith("LibrariesCjs") ? "libraries-cjs" : "libraries", SDK_CHUNK_FILE), "utf8");

it.each(FUNCTIONS)("%s answers as Warp what it answers as Optimized, from a cold start, and V8 takes Warp's cache", async (logicalId) => {
  const optimized = await invokeLogged(lab, `${logicalId}-Optimized`, { name: "ada" });
  const warp = await invokeLogged(lab, `${logicalId}-Warp`, { name: "ada" });
  expect(optimized.functionError).toBeUndefined();
  expect(optimized.payload).toMatchObject({ greeting: "hello, ada" });
  expect(warp).toMatchObject({ functionError: undefined, payload: optimized.payload });
  expect(warp.log).not.toContain(CACHE_REJECTED);
});

it("a first invoke that throws where the handler's own callback runs ends the invoke, not the build: the cache holds what ran", async () => {
  const codeDir = join(scratch, "ThrowsLater-Warp");
  const { codeCache } = await buildFunction(functionBuild(template, "ThrowsLater"), codeDir, { initServices: ownLocalAws });
  expect(codeCache).toMatchObject({ architectures: ["x86_64"], refused: [] });
});

it("the chunk holds the packages by the names the handler reads: what nothing imports is dropped, as in Optimized's bundle", () => {
  const chunk = chunkOf("Libraries-Warp");
  for (const pkg of ["shape-cjs", "shape-cjs-esmodule", "shape-esm", "shape-esm-whole"])
    expect(chunk).toContain(`"test/fixtures/sam-apps/warp-libraries/node_modules/${pkg}/index.js"`);
  expect(chunk).not.toContain("nobody imports this");
  const handler = readFileSync(builds.get("Libraries-Warp")!.outfile, "utf8");
  for (const fromPackage of ["the whole default", "a compiled name", "nobody imports this"]) expect(handler).not.toContain(fromPackage);
  // A CommonJS handler's require() takes a package whole.
  expect(chunkOf("LibrariesCjs-Warp")).toContain("nobody imports this");
  expect(builds.get("Libraries-Warp")!.notes).toEqual([]);
});

it("a builtin a package requires for what neither INIT nor the build's invoke did is loaded at its first use, and then works", async () => {
  const { fn } = builds.get("Libraries-Warp")!;
  const cache = readFileSync(join(fn.codeDir, "src/libraries/sdk.arm64.cache"));
  expect(JSON.parse(cache.toString("latin1", 0, cache.indexOf(10)))).toMatchObject({ deferred: ["node:crypto"] });
  const warp = await invokeLogged(lab, "Libraries-Warp", { name: "ada", digest: "abc" });
  expect(warp.payload).toMatchObject({ digest: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" });
});

it("a package with top-level await stays in the handler's bundle, and the build says so in one line", () => {
  expect(builds.get("LibraryAwaits-Warp")!.notes).toEqual([
    `its packages stay in the handler's bundle, out of the code cache: node_modules/shape-esm-awaits/index.js:2: Top-level await is currently not supported with the "cjs" output format`,
  ]);
  expect(builds.get("LibraryAwaits-Warp")!.codeCache).toBeUndefined();
});

it("ships a cache of its packages the arm64 Node takes: the artifact's INIT under qemu-aarch64 with nodejs22.x's flags accepts it", async () => {
  const { fn, outfile } = builds.get("Libraries-Warp")!;
  expect(fn.architecture).toBe("arm64");
  const [command, prefix] = nodeFor(RUNTIMES.node22, "arm64");
  const verdict = join(scratch, "verdict");
  await execOwned(
    command,
    [...prefix, ...RUNTIMES.node22.nodeFlags(fn.memoryMb), join(PACKAGE_ROOT, "builder/code-cache-child.mjs"), "status", outfile, verdict],
    {
      cwd: fn.codeDir,
      timeout: 120_000,
    },
  );
  expect(readFileSync(verdict, "utf8")).toBe("accepted");
}, 150_000);

it("each worker thread that imports Warp's handler takes the cache, as where INIT runs once per thread", () => {
  const { fn } = builds.get("Libraries-Warp")!;
  const taskRoot = prepareTaskRoot({ name: fn.logicalId, codeDir: fn.codeDir, handler: fn.handler, memoryMb: fn.memoryMb, runtime: RUNTIMES.node22 });
  try {
    const threads = `
      import { Worker } from "node:worker_threads";
      const code = 'import(${JSON.stringify(join(taskRoot, "src/libraries/index.mjs"))}).then(async (m) => (await import("node:worker_threads")).parentPort.postMessage(' +
        '{ status: globalThis[Symbol.for(${JSON.stringify(CODE_CACHE_STATUS.description)})], version: (await m.handler({ name: "ada" })).version }))';
      const answers = await Promise.all([1, 2].map(() => new Promise((resolve, reject) => {
        const worker = new Worker(code, { eval: true });
        worker.once("message", (answer) => { resolve(answer); worker.terminate(); });
        worker.once("error", reject);
      })));
      console.log(JSON.stringify(answers));`;
    const run = spawnSync(NODE22, [...RUNTIMES.node22.nodeFlags(fn.memoryMb), "--input-type=module", "-e", threads], {
      cwd: taskRoot,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual([
      { status: "accepted", version: "2.1.0" },
      { status: "accepted", version: "2.1.0" },
    ]);
  } finally {
    removeTaskRoot(taskRoot);
  }
});

it("a cache made from another build of a chunk of the same length is refused, never run: the function answers its own chunk's code and says why", async () => {
  // Another build: the app's shape-esm at a patch release whose version has as many characters (V8 checks a cache against its source's length only).
  const app = join(scratch, "another-build");
  cpSync(join(PACKAGE_ROOT, "test/fixtures/sam-apps/warp-libraries"), app, { recursive: true });
  const appTemplate = readTemplate(join(app, "template.yaml"));
  const buildInto = (dir: string) => buildFunction(functionBuild(appTemplate, "LibrariesCjs", "Warp"), join(app, dir), { initServices: ownLocalAws });
  const first = await buildInto("first");
  const shapeEsm = join(app, "node_modules/shape-esm/index.js");
  writeFileSync(shapeEsm, readFileSync(shapeEsm, "utf8").replace('"2.1.0"', '"2.1.1"'));
  const second = await buildInto("second");
  const chunks = [first, second].map(({ outfile }) => readFileSync(join(dirname(outfile), SDK_CHUNK_FILE), "utf8"));
  expect(chunks[0]).not.toBe(chunks[1]);
  expect(chunks[0]!.length).toBe(chunks[1]!.length);
  // Each build's chunk starts with its own mark, on the banner's line: no line of the code moves.
  const marks = chunks.map((text) => /^\/\*warpstart chunk ([0-9a-f]{16})\*\/var __warpstartImportMeta = /.exec(text)?.[1]);
  expect(marks[0]).toBeDefined();
  expect(marks[1]).toBeDefined();
  expect(marks[0]).not.toBe(marks[1]);
  const cacheFile = `sdk.${process.arch}.cache`;
  copyFileSync(join(dirname(first.outfile), cacheFile), join(dirname(second.outfile), cacheFile));

  const answer = `import(${JSON.stringify(second.outfile)}).then(async (m) => console.log(JSON.stringify({ status: globalThis[Symbol.for(${JSON.stringify(CODE_CACHE_STATUS.description)})], version: (await m.handler({ name: "ada" })).version })))`;
  const run = spawnSync(NODE22, [...RUNTIMES.node22.nodeFlags(512), "--input-type=module", "-e", answer], {
    cwd: join(app, "second"),
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(JSON.parse(run.stdout)).toEqual({ status: "rejected", version: "2.1.1" });
  expect(run.stderr.trim()).toBe(CACHE_OF_ANOTHER_BUILD);
});
