// What the doctor reads from a metafile (doctor/artifact.mts graphOf), its report in each form
// (doctor/report.mts), and --fail-on (doctor/findings.mts failsAt).
import type { Metafile } from "esbuild";
import { graphOf, packageName } from "../../doctor/artifact.mts";
import { finding } from "../../doctor/checks.mts";
import { type DoctorReport, failsAt, profilesNotMeasured, STATIC_ONLY } from "../../doctor/findings.mts";
import { measuringNote, renderJson, renderMarkdown, renderText } from "../../doctor/report.mts";

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
      profiles: profilesNotMeasured(STATIC_ONLY),
      findings: [finding("runtime-sdk", "imports @aws-sdk/client-sts unbundled"), finding("environment-variables", "1 environment variable (A)")],
      passed: ["commonjs"],
      bundle: { bytes: 2048, largestInputs: [{ path: "src/index.mts", bytes: 2048 }] },
      init: null,
      whyNotTraced: "the doctor ran its static checks only (--static)",
      labCaveat: null,
    },
    {
      name: "Clean",
      runtime: "nodejs22.x",
      profiles: profilesNotMeasured(STATIC_ONLY),
      findings: [],
      passed: ["runtime-sdk", "commonjs"],
      bundle: { bytes: 1024, largestInputs: [] },
      init: null,
      whyNotTraced: "the doctor ran its static checks only (--static)",
      labCaveat: null,
    },
  ],
  skipped: [{ name: "Py", runtime: "python3.13", why: "python3.13 is not Node.js" }],
  measuring: null,
};

/** The same report after the measuring step: the runtime SDK's fix measured, the environment variables' not. */
const MEASURED: DoctorReport = {
  ...REPORT,
  measuring: { rounds: 15, lab: "network: DNS 7 ms per connection, RTT 1 ms" },
  functions: [
    {
      ...REPORT.functions[0]!,
      profiles: [
        { profile: "Optimized", measured: null, whyNotMeasured: "the Optimized build failed: esbuild cannot bundle it", note: null },
        {
          profile: "Warp",
          measured: { metric: "init", rounds: 15, asIsMs: 300, fixedMs: 151, deltaMs: 149.04, deltaCi95: [140.2, 157.66], ratio: 1.99, ratioCi95: [1.9, 2.1] },
          whyNotMeasured: null,
          note: "built for and run on nodejs22.x, the runtime Warp's code cache is made for; the function runs on nodejs24.x",
        },
      ],
      findings: [
        {
          ...finding("runtime-sdk", "imports @aws-sdk/client-sts unbundled"),
          measured: { metric: "init", rounds: 15, asIsMs: 300, fixedMs: 240, deltaMs: 58.25, deltaCi95: [50.04, 66.1], ratio: 1.25, ratioCi95: [1.2, 1.31] },
          whyNotMeasured: null,
        },
        {
          ...finding("keep-alive-off", "keepAlive: false"),
          measured: { metric: "warm", rounds: 14, asIsMs: 30, fixedMs: 20, deltaMs: 9.5, deltaCi95: null, ratio: 1.5, ratioCi95: null },
          whyNotMeasured: null,
        },
        { ...finding("environment-variables", "1 environment variable (A)"), whyNotMeasured: "the lab does not play it" },
      ],
    },
    {
      ...REPORT.functions[1]!,
      init: {
        initMs: 150.04,
        phases: { beforeHandlerMs: 70, loadingCodeMs: 50, topLevelWorkMs: 28, afterHandlerMs: 2.04 },
        builtins: ["node:crypto", "node:zlib", "node:https"],
        heavyBuiltins: ["node:zlib"],
        awsCalls: [{ service: "sts", operation: "GetCallerIdentity", startMs: 131.25, ms: 4.5, status: 200 }],
      },
      whyNotTraced: null,
    },
  ],
};

it("--json: findings (problems only, measured null with --static, and why) and passed checks per function, and the skipped functions", () => {
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
    fix: "bundle the SDK: esbuild without @aws-sdk/* in External (this project's Optimized or Warp profile) (docs/doctor.md#runtime-sdk)",
    measured: null,
    whyNotMeasured: "the doctor ran its static checks only (--static)",
  });
  expect(json.skipped).toEqual(REPORT.skipped);
  expect(json.measuring).toBeNull();
});

it("the terminal's report (--static): a table per function with its fixes, what each finding found, the skipped, and that nothing is measured", () => {
  const text = renderText(REPORT);
  expect(text).toContain("Raw (nodejs22.x): 2 findings, 1 check passed; INIT loads 2.0 KiB");
  expect(text).toMatch(/^runtime-sdk {12}error {5}not measured {2}bundle the SDK: .* \(docs\/doctor\.md#runtime-sdk\)$/m);
  expect(text).toContain("  runtime-sdk: imports @aws-sdk/client-sts unbundled\n    not measured: the doctor ran its static checks only (--static)");
  expect(text).toContain("Clean (nodejs22.x): no findings, 2 checks passed; INIT loads 1.0 KiB");
  expect(text).toContain("skipped Py (python3.13): python3.13 is not Node.js");
  expect(text).toContain("Measured Δ: nothing ran in the lab (--static, or no function on a runtime the lab runs).");
  expect(text.trimEnd().split("\n").at(-1)).toBe("2 findings in 2 functions (1 error, 0 warn, 1 info), 1 skipped");
});

it("--markdown: the same, as Markdown tables", () => {
  const markdown = renderMarkdown(REPORT);
  expect(markdown).toContain("## Raw (nodejs22.x)");
  expect(markdown).toContain("| runtime-sdk | error | not measured | bundle the SDK: esbuild without @aws-sdk/* in External");
  expect(markdown).toContain("- **runtime-sdk**: imports @aws-sdk/client-sts unbundled; not measured: the doctor ran its static checks only (--static)");
  expect(markdown).toContain("## Skipped");
});

describe("after the measuring step", () => {
  it("a function the lab ran otherwise than Lambda would (without a published layer) says so under its name", () => {
    const caveat =
      "traced and measured without its layer arn:aws:lambda:us-east-1:094274105915:layer:AWSLambdaPowertoolsTypeScriptV2:41: the lab cannot fetch a published layer";
    const report: DoctorReport = { ...MEASURED, functions: [MEASURED.functions[0]!, { ...MEASURED.functions[1]!, labCaveat: caveat }] };
    expect(renderText(report)).toContain(
      "Clean (nodejs22.x): no findings, 2 checks passed; INIT loads 1.0 KiB\nNote: traced and measured without its layer arn:aws:lambda:us-east-1:094274105915:layer:AWSLambdaPowertoolsTypeScriptV2:41: the lab cannot fetch a published layer\nINIT in the lab 150.0 ms",
    );
    expect(renderMarkdown(report)).toContain("- Note: traced and measured without its layer arn:aws:lambda:");
  });

  it("first under each function: what Warp, then Optimized, built from its source did to its Init p50, or why it is not measured", () => {
    const text = renderText(MEASURED);
    expect(text).toContain(
      [
        "Raw (nodejs22.x): 3 findings, 1 check passed; INIT loads 2.0 KiB",
        "Warp: 300.0 → 151.0 ms, -149.0 ms [-157.7, -140.2] (built for and run on nodejs22.x, the runtime Warp's code cache is made for; the function runs on nodejs24.x)",
        "Optimized: not measured: the Optimized build failed: esbuild cannot bundle it",
        "INIT not traced",
      ].join("\n"),
    );
    expect(renderMarkdown(MEASURED)).toContain("- Warp: 300.0 → 151.0 ms, -149.0 ms [-157.7, -140.2]");
    const json = JSON.parse(renderJson(MEASURED)) as DoctorReport;
    expect(json.functions[0]!.profiles.map(({ profile, measured }) => [profile, measured?.fixedMs ?? null])).toEqual([
      ["Optimized", null],
      ["Warp", 151],
    ]);
  });

  it("with --static, where nothing is built, no function shows its profiles", () => {
    expect(renderText(REPORT)).not.toMatch(/^(Warp|Optimized):/m);
  });

  it("the table says what each fix bought with its 95% CI, and the metric when it is not Init", () => {
    const text = renderText(MEASURED);
    expect(text).toMatch(/^runtime-sdk +error +\+58\.3 ms \[50\.0, 66\.1\] +bundle the SDK/m);
    expect(text).toMatch(/^keep-alive-off +warn +\+9\.5 ms \(warm invoke\) +leave the SDK's https agent/m);
    expect(text).toMatch(/^environment-variables +info +not measured +embed/m);
  });

  it("under each finding: the measurement in full, or why there is none", () => {
    const text = renderText(MEASURED);
    expect(text).toContain("    measured: Init p50 300.0 ms as it is, 240.0 ms fixed (×1.25 [1.20, 1.31], 15 rounds)");
    expect(text).toContain("    measured: warm invoke p50 30.0 ms as it is, 20.0 ms fixed (×1.50, 14 rounds)");
    expect(text).toContain("    not measured: the lab does not play it");
    expect(renderMarkdown(MEASURED)).toContain("| runtime-sdk | error | +58.3 ms [50.0, 66.1] | bundle the SDK");
  });

  it("the note says what Measured Δ is, over how many rounds, in which lab", () => {
    expect(measuringNote(MEASURED)).toBe(
      "Measured Δ: what the fix buys, the median of the per-round differences (as it is − fixed) with its 95% CI, Init Duration unless said. A profile (Warp, Optimized, or one --profiles names): the function's source built by this template's pipeline in that profile, Init p50 as it is → so built, and the median change with its 95% CI. 15 rounds in the lab, the function, its fixes and its profiles' builds in a shuffled order each round (network: DNS 7 ms per connection, RTT 1 ms).",
    );
    const caveat =
      "traced and measured without its layer arn:aws:lambda:us-east-1:094274105915:layer:AWSLambdaPowertoolsTypeScriptV2:41: the lab cannot fetch a published layer";
    const report: DoctorReport = { ...MEASURED, functions: [MEASURED.functions[0]!, { ...MEASURED.functions[1]!, labCaveat: caveat }] };
    expect(renderText(report)).toContain(measuringNote(MEASURED));
  });

  it("each function's traced cold start: INIT's split, its AWS calls, the builtins its import loaded and which to load only when needed", () => {
    const text = renderText(MEASURED);
    expect(text).toContain(
      [
        "Clean (nodejs22.x): no findings, 2 checks passed; INIT loads 1.0 KiB",
        "INIT in the lab 150.0 ms: before the handler 70.0, loading its code 50.0, top-level work 28.0, after it 2.0",
        "  AWS calls during INIT: sts GetCallerIdentity (200) at 131.3 ms, 4.5 ms",
        "  builtins its import loaded: node:crypto, node:zlib, node:https; of them node:zlib only when needed",
      ].join("\n"),
    );
    expect(text).toContain("INIT not traced: the doctor ran its static checks only (--static)");
    expect(renderMarkdown(MEASURED)).toContain("- AWS calls during INIT: sts GetCallerIdentity (200) at 131.3 ms, 4.5 ms");
  });

  it("--json carries each measurement", () => {
    const json = JSON.parse(renderJson(MEASURED)) as DoctorReport;
    expect(json.functions[0]!.findings[0]!.measured).toEqual(MEASURED.functions[0]!.findings[0]!.measured);
    expect(json.measuring).toEqual({ rounds: 15, lab: "network: DNS 7 ms per connection, RTT 1 ms" });
  });
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
