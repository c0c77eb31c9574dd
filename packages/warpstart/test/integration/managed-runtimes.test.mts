// Every managed runtime Lambda still runs, in the lab and in Warp's build: the demo's Warp built for
// nodejs18.x and nodejs24.x (its Runtime set so; nodejs22.x's is the global setup's sam build,
// test/integration/build.test.mts; nodejs20.x's, test/slow/runtime-matrix.test.mts) answers on that
// runtime's Node. Where the chunk
// loader runs (Node 20 and later), each architecture's code cache is made by that runtime's Node:
// the arm64 one, shipped, is taken by Lambda's arm64 Node of that version under qemu-aarch64, and
// this machine's, the lab's, by the lab's cold start. Node 18 has no process.getBuiltinModule: its
// build leaves the chunk out, and says so.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BuildResult, buildFunction, functionBuild } from "../../builder/build.mts";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { execOwned } from "../../core/processes.mts";
import { type ManagedRuntime, nodeFor, RUNTIMES } from "../../core/runtimes.mts";
import { readTemplate, type SamTemplate } from "../../core/template.mts";
import { functionEnvironment, labOverlayOf, servicesOf } from "../../emulation/function-environment.mts";
import { ownLocalAws } from "../../emulation/local-aws/build-services.mts";
import { startLocalAws } from "../../emulation/local-aws/local-aws.mts";
import { type Lab, startLab } from "../../lab/lab.mts";
import { DEMO_BUILD_DIR, DEMO_TEMPLATE } from "../support/demo.mts";
import { eventOf, invokeLogged } from "../support/lab.mts";

const scratch = mkdtempSync(join(tmpdir(), "warpstart-managed-runtimes-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const HANDLER_DIR = "src/functions/identity";

/** A template's Warp with its Runtime set to a runtime's. */
function onRuntime(template: SamTemplate, runtime: ManagedRuntime): SamTemplate {
  return { ...template, functions: template.functions.map((fn) => (fn.logicalId === "Warp" ? { ...fn, runtime: runtime.lambdaRuntime } : fn)) };
}

/** The demo's Warp built for a runtime, into a folder of its own. */
async function warpFor(runtime: ManagedRuntime): Promise<{ outdir: string; result: BuildResult }> {
  const template = onRuntime(readTemplate(DEMO_TEMPLATE), runtime);
  const outdir = join(scratch, runtime.name);
  const result = await buildFunction(functionBuild(template, "Warp"), outdir, { initServices: ownLocalAws });
  return { outdir, result };
}

/** What V8 does with the shipped arm64 cache in the runtime's arm64 Node under qemu, with the runtime's flags at 512 MB (builder/code-cache-child.mjs). */
async function arm64Verdict(runtime: ManagedRuntime, outdir: string): Promise<string> {
  const [command, prefix] = nodeFor(runtime, "arm64");
  const aws = await startLocalAws();
  try {
    const env = functionEnvironment(
      { name: "Warp", codeDir: outdir, handler: `${HANDLER_DIR}/index.handler`, memoryMb: 512, runtime },
      outdir,
      servicesOf(aws),
    );
    const verdict = join(outdir, "..", `${runtime.name}-verdict`);
    await execOwned(
      command,
      [...prefix, ...runtime.nodeFlags(512), join(PACKAGE_ROOT, "builder/code-cache-child.mjs"), "status", join(outdir, HANDLER_DIR, "index.mjs"), verdict],
      { env, cwd: outdir, timeout: 120_000 },
    );
    return readFileSync(verdict, "utf8");
  } finally {
    await aws.stop();
  }
}

/** One cold invoke of a build of the demo's Warp in the lab, on a runtime: its answer. */
async function invokeOn(runtime: ManagedRuntime, outdir: string): Promise<Record<string, unknown>> {
  const served = onRuntime(readTemplate(join(DEMO_BUILD_DIR, "template.yaml")), runtime).functions.find((fn) => fn.logicalId === "Warp")!;
  let lab: Lab | undefined;
  try {
    lab = await startLab({ parameterOverrides: {}, only: [], extraFunctions: [{ ...served, logicalId: `Warp-${runtime.name}`, codeDir: outdir }] });
    const { functionError, payload } = await invokeLogged(lab, `Warp-${runtime.name}`, eventOf("Warp"));
    expect(functionError).toBeUndefined();
    return JSON.parse((payload as { body: string }).body) as Record<string, unknown>;
  } finally {
    await lab?.stop();
  }
}

describe.each([RUNTIMES.node24])("Warp on $lambdaRuntime", (runtime) => {
  let built: Awaited<ReturnType<typeof warpFor>>;
  beforeAll(async () => {
    built = await warpFor(runtime);
  }, 240_000);

  it("ships the arm64 cache its runtime's arm64 Node takes, made by that Node; this machine's goes to the lab's overlay", async () => {
    expect(built.result.codeCache?.architectures.sort()).toEqual(["arm64", "x86_64"].filter((arch) => arch === "arm64" || process.arch === "x64").sort());
    const header = readFileSync(join(built.outdir, HANDLER_DIR, "sdk.arm64.cache"), "latin1").split("\n")[0]!;
    expect(JSON.parse(header)).toMatchObject({ node: `v${runtime.version}` });
    expect(readdirSync(join(labOverlayOf(built.outdir), HANDLER_DIR))).toEqual([`sdk.${process.arch}.cache`]);
    expect(await arm64Verdict(runtime, built.outdir)).toBe("accepted");
  }, 180_000);

  it("answers in the lab on its runtime's Node, with the cache accepted", async () => {
    expect(await invokeOn(runtime, built.outdir)).toMatchObject({ nodeVersion: `v${runtime.version}`, codeCache: "accepted" });
  }, 120_000);
});

describe("nodejs18.x", () => {
  it("builds Warp without the chunk, saying why, and answers on Node 18", async () => {
    const { outdir, result } = await warpFor(RUNTIMES.node18);
    expect(result.codeCache).toBeUndefined();
    expect(result.notes).toContain(
      "Node 18 has no process.getBuiltinModule, which the chunk's loader uses: built without the chunk and its code cache (as Optimized, and no shared config files); Warp's code cache needs nodejs20.x or later",
    );
    expect(existsSync(join(outdir, HANDLER_DIR, "sdk.cjs"))).toBe(false);
    expect(await invokeOn(RUNTIMES.node18, outdir)).toMatchObject({ nodeVersion: `v${RUNTIMES.node18.version}`, codeCache: "absent" });
  }, 240_000);
});
