// The doctor's dynamic checks (doctor/dynamic.mts) on the built template (globalSetup's build),
// in a lab of their own: a clean traced cold start passes init-error; a code cache V8 rejects at
// run time is a finding even where the build looked right (Warp's cache was made with the node
// flags of 512 MB, and the same artifact at 1024 MB runs with others).
import { join } from "node:path";
import { builtTemplateOf } from "../../core/paths.mts";
import { readTemplate } from "../../core/template.mts";
import { readBuiltFunction } from "../../doctor/artifact.mts";
import { examine } from "../../doctor/checks.mts";
import { traceInLab } from "../../doctor/dynamic.mts";
import { type Lab, startLab } from "../../lab/lab.mts";
import { DEMO_TEMPLATE } from "../support/demo.mts";

const warp = readTemplate(builtTemplateOf(DEMO_TEMPLATE)).functions.find((fn) => fn.logicalId === "Warp")!;
const warpAt1024 = { ...warp, logicalId: "WarpAt1024", memoryMb: 1024 };
// A nodejs20.x function whose CommonJS require()s an ES module, which its bootstrap's flags refuse.
const requiresEsm = {
  ...warp,
  logicalId: "RequiresEsm",
  runtime: "nodejs20.x",
  codeDir: join(import.meta.dirname, "../fixtures/lab/requires-esm"),
  handler: "index.handler",
  layers: [],
  buildMethod: null,
};

let lab: Lab;
beforeAll(async () => {
  lab = await startLab({ only: ["Warp"], extraFunctions: [warpAt1024, requiresEsm] });
});
afterAll(async () => {
  await lab?.stop();
});

it("a traced cold start that completes: its INIT in the report, init-error passed, no finding added", async () => {
  const built = await readBuiltFunction(warp);
  const report = examine(built);
  await traceInLab(lab, { built, report });
  expect(report.findings).toEqual([]);
  expect(report.passed).toContain("init-error");
  expect(report).toMatchObject({ whyNotTraced: null, init: { heavyBuiltins: [], awsCalls: [{ service: "sts", operation: "GetCallerIdentity" }] } });
});

it("the same cache at another memory size: V8 rejects it, and that is a code-cache-mismatch finding, not measured", async () => {
  const built = await readBuiltFunction(warpAt1024);
  const report = examine(built);
  expect(report.findings).toEqual([]); // the build alone cannot tell
  await traceInLab(lab, { built, report });
  expect(report.findings).toEqual([
    expect.objectContaining({
      id: "code-cache-mismatch",
      message: "its code cache was rejected in the lab's cold start (its log says so): INIT compiled the SDK",
      whyNotMeasured: expect.stringMatching(/^the fix is a build for the function's runtime and architecture/),
    }),
  ]);
  expect(report.passed).not.toContain("code-cache-mismatch");
});

it("an INIT that require()s an ES module on nodejs20.x, whose bootstrap turns that off: init-error, saying so", async () => {
  const built = await readBuiltFunction(requiresEsm);
  const report = examine(built);
  await traceInLab(lab, { built, report });
  expect(report.findings.find((found) => found.id === "init-error")).toMatchObject({
    message: expect.stringMatching(
      /^nodejs20\.x's bootstrap disables require\(\) of ES modules \(--no-experimental-require-module\), and its code requires one: import it instead, or bundle it \(.*require\(\) of ES Module /s,
    ),
  });
});
