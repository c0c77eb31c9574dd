// The exec wrapper that drops the managed runtime's V8 flags (src/warp/warp-exec), started as
// Lambda's bootstrap starts it: what the wrapped function sees, the bootstrap's refusals, and the
// build that ships it. The code caches V8 takes under it, here and on the arm64 Node under qemu:
// test/slow/exec-wrapper-code-caches.test.mts.
import { chmodSync, copyFileSync, cpSync, existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildFunction, functionBuild } from "../../builder/build.mts";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { removeTree } from "../../core/processes.mts";
import { RUNTIMES } from "../../core/runtimes.mts";
import { readTemplate, type TemplateFunction } from "../../core/template.mts";
import { ownLocalAws } from "../../emulation/local-aws/build-services.mts";
import { type Lab, startLab } from "../../lab/lab.mts";
import { WARP_EXEC_WRAPPER } from "../../src/contract.mts";
import { DEMO_TEMPLATE } from "../support/demo.mts";
import { invokeLogged } from "../support/lab.mts";

const WRAPPER = join(PACKAGE_ROOT, "src/warp/warp-exec");
const LAB_TEMPLATE = join(import.meta.dirname, "../fixtures/lab/template.yaml");
const root = mkdtempSync(join(tmpdir(), "warpstart-exec-wrapper-"));
afterAll(() => removeTree(root));
const scratch = () => mkdtempSync(join(root, "scratch-"));
const wrapped = (fn: TemplateFunction): TemplateFunction => ({ ...fn, environment: { ...fn.environment, AWS_LAMBDA_EXEC_WRAPPER: WARP_EXEC_WRAPPER } });
/** The V8 flags of nodejs22.x's bootstrap, which the wrapper drops (the Node flags stay). */
const isV8Flag = (flag: string) => flag === "--expose-gc" || /^--max-(semi|old)-space-size=/.test(flag);

describe("a function started through the wrapper", () => {
  const probe = readTemplate(LAB_TEMPLATE, {}).functions.find((fn) => fn.logicalId === "WrapperProbe")!;
  /** The probe's code with `wrapper` (null: none) at /var/task/warp-exec, with that mode. */
  const probeCopy = (logicalId: string, wrapper: { file: string; mode: number } | null): TemplateFunction => {
    const codeDir = join(scratch(), logicalId);
    cpSync(probe.codeDir, codeDir, { recursive: true });
    if (wrapper) {
      copyFileSync(wrapper.file, join(codeDir, "warp-exec"));
      chmodSync(join(codeDir, "warp-exec"), wrapper.mode);
    }
    return { ...wrapped(probe), logicalId, codeDir };
  };
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab({
      template: LAB_TEMPLATE,
      parameterOverrides: {},
      only: ["WrapperProbe"],
      extraFunctions: [
        probeCopy("WrappedProbe", { file: WRAPPER, mode: 0o755 }),
        probeCopy("NoWrapperFile", null),
        probeCopy("WrapperNotExecutable", { file: WRAPPER, mode: 0o644 }),
      ],
    });
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it("gets the same event, context and environment and gives the same answer; only node's V8 flags differ", async () => {
    const event = { path: "/probe", body: "the same" };
    const plain = await invokeLogged(lab, "WrapperProbe", event);
    const viaWrapper = await invokeLogged(lab, "WrappedProbe", event);
    expect(plain.functionError).toBeUndefined();
    expect(viaWrapper.functionError).toBeUndefined();
    expect(viaWrapper.report?.initDurationMs).toBeGreaterThan(0);
    const lambdaFlags = [...RUNTIMES.node22.nodeFlags(probe.memoryMb)];
    expect(plain.payload).toMatchObject({
      event,
      functionName: "WrapperProbe",
      memoryLimitInMB: "256",
      remainingTimeMs: true,
      execArgv: lambdaFlags,
      gc: "function",
    });
    expect(viaWrapper.payload).toMatchObject({
      event,
      functionName: "WrappedProbe",
      memoryLimitInMB: "256",
      remainingTimeMs: true,
      execArgv: lambdaFlags.filter((flag) => !isV8Flag(flag)),
      gc: "undefined",
    });
    expect(viaWrapper.payload.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(viaWrapper.payload.variables).toEqual([...plain.payload.variables, "AWS_LAMBDA_EXEC_WRAPPER"].sort());
    // With Lambda's flags the heap is what 256 MB buys; without them V8 sizes it from the memory it sees (docs/warp.md).
    expect(plain.payload.heapLimitMb).toBeLessThan(viaWrapper.payload.heapLimitMb);
  });

  it.each([
    ["NoWrapperFile", "does not exist", 127],
    ["WrapperNotExecutable", "is not an executable", 126],
  ])("%s: INIT fails as Lambda's bootstrap fails it, printing `%s` (exit %d)", async (name, problem, code) => {
    const { functionError, payload, log } = await invokeLogged(lab, name);
    expect(functionError).toBe("Unhandled");
    expect(payload).toEqual({ errorType: "Runtime.ExitError", errorMessage: `Runtime exited with error: exit status ${code}` });
    expect(log).toContain(`${WARP_EXEC_WRAPPER}: ${problem}`);
  });
});

it("ships the wrapper only in a function whose AWS_LAMBDA_EXEC_WRAPPER names it", async () => {
  const build = functionBuild(readTemplate(DEMO_TEMPLATE), "Hello");
  const [plain, viaWrapper] = [join(scratch(), "Hello"), join(scratch(), "Hello")];
  await buildFunction(build, plain, { initServices: ownLocalAws });
  await buildFunction({ ...build, fn: wrapped(build.fn) }, viaWrapper, { initServices: ownLocalAws });
  expect(existsSync(join(plain, "warp-exec"))).toBe(false);
  expect(existsSync(join(viaWrapper, "warp-exec"))).toBe(true);
}, 60_000);
