// What the doctor reads from a metafile (doctor/artifact.mts graphOf), its report in each form
// (doctor/report.mts), and --fail-on (doctor/findings.mts failsAt).
import type { Metafile } from "esbuild";
import { graphOf, packageName } from "../../doctor/artifact.mts";
import { type DoctorReport, failsAt, finding } from "../../doctor/findings.mts";
import { MEASURING_NOTE, renderJson, renderMarkdown, renderText } from "../../doctor/report.mts";

const input = (bytes: number) => ({ bytes, imports: [] });

/** A build's metafile: a handler and an SDK chunk, paths relative to the project. */
const BUILD: Metafile = {
  inputs: {
    "src/functions/x/index.mts": input(900),
    "node_modules/@aws-sdk/client-sts/dist-es/STSClient.js": input(5000),
    "patches/node_modules/@smithy/core/dist-es/index.js": input(3000),
    "<sdk-chunk>": input(100),
    "sdk-chunk:@aws-sdk/client-sts": input(50),
  },
  outputs: {
    ".aws-sam/build/X/src/functions/x/index.mjs": {
      bytes: 1200,
      inputs: { "src/functions/x/index.mts": { bytesInOutput: 800 }, "sdk-chunk:@aws-sdk/client-sts": { bytesInOutput: 40 } },
      imports: [
        { path: "node:path", kind: "import-statement", external: true },
        { path: "./sdk.cjs", kind: "require-call", external: true },
        { path: "@aws-sdk/credential-provider-ini", kind: "dynamic-import", external: true },
        { path: "@aws-sdk/client-sts", kind: "import-statement", external: true },
      ],
      exports: ["handler"],
    },
    ".aws-sam/build/X/src/functions/x/sdk.cjs": {
      bytes: 7000,
      inputs: {
        "node_modules/@aws-sdk/client-sts/dist-es/STSClient.js": { bytesInOutput: 4000 },
        "patches/node_modules/@smithy/core/dist-es/index.js": { bytesInOutput: 2500 },
        "<sdk-chunk>": { bytesInOutput: 90 },
      },
      imports: [{ path: "fs", kind: "require-call", external: true }],
      exports: [],
    },
  },
};

it.each([
  ["node_modules/@aws-sdk/client-sts/dist-es/index.js", "@aws-sdk/client-sts"],
  ["patches/node_modules/a/node_modules/tslib/tslib.es6.mjs", "tslib"],
  ["@smithy/core/protocols", "@smithy/core"],
  ["lodash/fp", "lodash"],
])("packageName(%s) is %s", (path, name) => {
  expect(packageName(path)).toBe(name);
});

describe("a build's metafile", () => {
  const graph = graphOf(BUILD, "/project", "build");

  it("says which packages it bundled, and which bare imports it left to run time (not Node's builtins)", () => {
    expect(graph.bundledPackages).toEqual(["@aws-sdk/client-sts", "@smithy/core"]);
    expect(graph.runtimeImports).toEqual(["@aws-sdk/client-sts", "@aws-sdk/credential-provider-ini"]);
  });

  it("the function's own files are the inputs outside node_modules (not esbuild's stdin nor a plugin's namespace)", () => {
    expect(graph.ownFiles).toEqual(["/project/src/functions/x/index.mts"]);
  });

  it("its size is what ships: the outputs' bytes, and each input's bytes in them, largest first", () => {
    expect(graph.bundle).toEqual({
      bytes: 8200,
      largestInputs: [
        { path: "node_modules/@aws-sdk/client-sts/dist-es/STSClient.js", bytes: 4000 },
        { path: "patches/node_modules/@smithy/core/dist-es/index.js", bytes: 2500 },
        { path: "src/functions/x/index.mts", bytes: 800 },
        { path: "<sdk-chunk>", bytes: 90 },
        { path: "sdk-chunk:@aws-sdk/client-sts", bytes: 40 },
      ],
    });
  });
});

it("the doctor's own metafile (files that ship as they are) bundles no package, and its sizes are the files'", () => {
  const graph = graphOf(BUILD, "/artifact", "doctor");
  expect(graph.bundledPackages).toEqual([]);
  expect(graph.bundle.bytes).toBe(900 + 50 + 5000 + 3000 + 100);
  expect(graph.ownFiles).toEqual(["/artifact/src/functions/x/index.mts"]);
});

const REPORT: DoctorReport = {
  template: "/app/template.yaml",
  functions: [
    {
      name: "Raw",
      runtime: "nodejs22.x",
      findings: [finding("runtime-sdk", "imports @aws-sdk/client-sts unbundled"), finding("environment-variables", "1 environment variable (A)")],
      passed: ["commonjs"],
      bundle: { bytes: 2048, largestInputs: [{ path: "src/index.mts", bytes: 2048 }] },
    },
    { name: "Clean", runtime: "nodejs22.x", findings: [], passed: ["runtime-sdk", "commonjs"], bundle: { bytes: 1024, largestInputs: [] } },
  ],
  skipped: [{ name: "Py", runtime: "python3.13", why: "python3.13 is not Node.js" }],
};

it("--json: findings (problems only, measured null) and passed checks per function, and the skipped functions", () => {
  const json = JSON.parse(renderJson(REPORT)) as DoctorReport;
  expect(json.functions.map((fn) => [fn.name, fn.runtime, fn.findings.map((found) => [found.id, found.severity, found.measured]), fn.passed])).toEqual([
    [
      "Raw",
      "nodejs22.x",
      [
        ["runtime-sdk", "error", null],
        ["environment-variables", "info", null],
      ],
      ["commonjs"],
    ],
    ["Clean", "nodejs22.x", [], ["runtime-sdk", "commonjs"]],
  ]);
  expect(json.functions[0]!.findings[0]).toEqual({
    id: "runtime-sdk",
    severity: "error",
    message: "imports @aws-sdk/client-sts unbundled",
    fix: "bundle the SDK: esbuild without @aws-sdk/* in External (this project's Optimized or Warp profile) (README.md#runtime-sdk)",
    measured: null,
  });
  expect(json.skipped).toEqual(REPORT.skipped);
});

it("the terminal's report: a table per function with its fixes, what each finding found, the skipped, and what is not measured", () => {
  const text = renderText(REPORT);
  expect(text).toContain("Raw (nodejs22.x): 2 findings, 1 check passed; INIT loads 2.0 KiB");
  expect(text).toMatch(/^runtime-sdk {12}error {5}not measured {2}bundle the SDK: .* \(README\.md#runtime-sdk\)$/m);
  expect(text).toContain("  runtime-sdk: imports @aws-sdk/client-sts unbundled");
  expect(text).toContain("Clean (nodejs22.x): no findings, 2 checks passed; INIT loads 1.0 KiB");
  expect(text).toContain("skipped Py (python3.13): python3.13 is not Node.js");
  expect(text).toContain(MEASURING_NOTE);
  expect(text.trimEnd().split("\n").at(-1)).toBe("2 findings in 2 functions (1 error, 0 warn, 1 info), 1 skipped");
});

it("--markdown: the same, as Markdown tables", () => {
  const markdown = renderMarkdown(REPORT);
  expect(markdown).toContain("## Raw (nodejs22.x)");
  expect(markdown).toContain("| runtime-sdk | error | not measured | bundle the SDK: esbuild without @aws-sdk/* in External");
  expect(markdown).toContain("- **runtime-sdk**: imports @aws-sdk/client-sts unbundled");
  expect(markdown).toContain("## Skipped");
});

it.each([
  ["warn", true],
  ["error", true],
] as const)("--fail-on %s fails on an error", (threshold, fails) => {
  expect(failsAt(REPORT, threshold)).toBe(fails);
});

it("--fail-on warn passes when only info findings exist, and so does error on warnings", () => {
  const infoOnly = { ...REPORT, functions: [{ ...REPORT.functions[0]!, findings: [finding("environment-variables", "1 environment variable (A)")] }] };
  expect(failsAt(infoOnly, "warn")).toBe(false);
  const warnOnly = { ...REPORT, functions: [{ ...REPORT.functions[0]!, findings: [finding("commonjs", "CommonJS")] }] };
  expect(failsAt(warnOnly, "warn")).toBe(true);
  expect(failsAt(warnOnly, "error")).toBe(false);
});
