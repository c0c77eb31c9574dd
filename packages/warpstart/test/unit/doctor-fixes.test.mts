// How the doctor builds each finding's fix (its check's, doctor/checks.mts), the template of fixed
// copies it builds them from, and what a measurement makes of a run's samples (doctor/measure.mts).
// The real builds and cold starts are in test/integration/doctor.test.mts.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UNUSED_CREDENTIAL_PROVIDERS } from "../../builder/profiles.mts";
import type { TemplateResourceEntry } from "../../core/template.mts";
import { standInIds } from "../../doctor/app-build.mts";
import type { BuiltFunction } from "../../doctor/artifact.mts";
import { type BuildFix, type CheckId, COMMONJS_BANNER, fixFor } from "../../doctor/checks.mts";
import { fixesTemplate, measuredCost, samFailureLine } from "../../doctor/measure.mts";
import type { CellResult, Sample } from "../../measure/cold-starts.mts";
import { built } from "../support/built-function.mts";

/** The resource after the fix's rewrite, or why there is no fix. */
function fixed(id: CheckId, fn: BuiltFunction, resource: TemplateResourceEntry = { Type: "AWS::Serverless::Function" }): TemplateResourceEntry | string {
  const fix = fixFor(id, fn);
  if ("why" in fix) return fix.why;
  const copy = structuredClone(resource);
  fix.rewrite(copy);
  return copy;
}

const esbuilt = (buildProperties: Record<string, unknown>, environment: Record<string, unknown> = {}) =>
  built({ pipeline: false, fn: { buildMethod: "esbuild", buildProperties, environment } });
const withProperties = (BuildProperties: Record<string, unknown>): TemplateResourceEntry => ({
  Type: "AWS::Serverless::Function",
  Metadata: { BuildMethod: "esbuild", BuildProperties },
});

describe("this project's pipeline: a fix is a build profile or property", () => {
  it.each(["runtime-sdk", "credential-providers"] as const)("%s: the Optimized profile", (id) => {
    const resource = { Type: "AWS::Serverless::Function", Metadata: { BuildMethod: "makefile", BuildProperties: { Profile: "Raw" } } };
    expect(fixed(id, built(), resource)).toEqual({ ...resource, Metadata: { BuildMethod: "makefile", BuildProperties: { Profile: "Optimized" } } });
  });

  it("commonjs: no Format (the pipeline builds ES modules)", () => {
    const resource = { Type: "AWS::Serverless::Function", Metadata: { BuildProperties: { Profile: "Optimized", Format: "cjs" } } };
    expect(fixed("commonjs", built(), resource)).toEqual({ Type: "AWS::Serverless::Function", Metadata: { BuildProperties: { Profile: "Optimized" } } });
  });

  it("keep-alive-off by the build's Define: KEEP_ALIVE true, the other constants kept; measured on a warm invoke", () => {
    const fn = built({ fn: { buildProperties: { Define: { KEEP_ALIVE: false, STAGE: "x" } } } });
    expect(fixed("keep-alive-off", fn, withProperties({ Define: { KEEP_ALIVE: false, STAGE: "x" } }))).toEqual(
      withProperties({ Define: { KEEP_ALIVE: true, STAGE: "x" } }),
    );
    expect((fixFor("keep-alive-off", fn) as BuildFix).metric).toBe("warm");
  });

  it("keep-alive-off in the function's code: no build fixes it", () => {
    const fn = built({ ownCode: [{ file: "src/a.mts", text: "new NodeHttpHandler({ httpsAgent: { keepAlive: false } })" }] });
    expect(fixed("keep-alive-off", fn)).toBe("keepAlive: false is in the function's code: the fix is a change to it");
  });
});

describe("SAM's esbuild builder: a fix is a BuildProperties change", () => {
  it("runtime-sdk: the SDK leaves External, the providers Lambda never reaches join it, other externals stay", () => {
    const fn = esbuilt({ External: ["@aws-sdk/*", "@smithy/*", "pg-native"] });
    expect(fixed("runtime-sdk", fn, withProperties({ External: ["@aws-sdk/*", "@smithy/*", "pg-native"] }))).toEqual(
      withProperties({ External: ["pg-native", ...UNUSED_CREDENTIAL_PROVIDERS] }),
    );
  });

  it("credential-providers: added to External, written as a list or as one comma-separated string", () => {
    expect(fixed("credential-providers", esbuilt({}), withProperties({ External: "pg-native, sharp" }))).toEqual(
      withProperties({ External: ["pg-native", "sharp", ...UNUSED_CREDENTIAL_PROVIDERS] }),
    );
  });

  it("commonjs: an ES module with the .mjs extension Node needs", () => {
    expect(fixed("commonjs", esbuilt({ Format: "cjs" }), withProperties({ Format: "cjs", Target: "node22" }))).toEqual(
      withProperties({ Format: "esm", Target: "node22", OutExtension: [".js=.mjs"] }),
    );
  });

  it("commonjs of a bundle with CommonJS modules in it: the createRequire banner and the path variables too, the app's other properties kept", () => {
    const bundle = (text: string) => ({ ...esbuilt({ Format: "cjs" }), ownCode: [{ file: "app.js", text }] });
    const minified = bundle('var O=(e,t)=>()=>(t||e((t={exports:{}}).exports,t),t.exports);var p=O((x,m)=>{m.exports=require("util")});');
    const properties = { Format: "cjs", Target: "node22", KeepNames: true, Loader: [".node=file"] };
    expect(fixed("commonjs", minified, withProperties(properties))).toEqual(
      withProperties({ ...properties, Format: "esm", OutExtension: [".js=.mjs"], Banner: [`js=${COMMONJS_BANNER}`] }),
    );
    const readable = bundle(
      "var __commonJS = (cb, mod) => function __require() { return mod || (0, cb[__getOwnPropNames(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports; };",
    );
    expect(fixed("commonjs", readable, withProperties({ Banner: ["css=/* ours */", "js=// built by us"] }))).toEqual(
      withProperties({ Banner: [`js=${COMMONJS_BANNER} // built by us`, "css=/* ours */"], Format: "esm", OutExtension: [".js=.mjs"] }),
    );
    // An app that gives its bundle a require already (Powertools' example app) keeps its banner as it is.
    const own = ['js=import { createRequire } from "module";const require = createRequire(import.meta.url);'];
    expect(fixed("commonjs", readable, withProperties({ Banner: own }))).toEqual(withProperties({ Banner: own, Format: "esm", OutExtension: [".js=.mjs"] }));
  });

  it("esbuild-target: the runtime's Node", () => {
    const fn = built({ pipeline: false, fn: { buildMethod: "esbuild", runtime: "nodejs20.x" } });
    expect(fixed("esbuild-target", fn, withProperties({ Target: "es2020" }))).toEqual(withProperties({ Target: "node20" }));
  });

  it("source-maps: Sourcemap off, and NODE_OPTIONS without --enable-source-maps as the function's own variable (it overrides the Globals')", () => {
    const fn = esbuilt({ Sourcemap: true }, { NODE_OPTIONS: "--enable-source-maps --max-old-space-size=400" });
    expect(fixed("source-maps", fn, { ...withProperties({ Sourcemap: true }), Properties: { Environment: { Variables: { A: "1" } } } })).toEqual({
      ...withProperties({ Sourcemap: false }),
      Properties: { Environment: { Variables: { A: "1", NODE_OPTIONS: "--max-old-space-size=400" } } },
    });
  });
});

it.each([
  ["runtime-sdk", /^the function is not bundled \(SAM's npm builder\)/],
  ["commonjs", /^the function is not bundled: making its handler an ES module is a change to its code$/],
] as const)("%s of a function no bundler builds: not measured, and why", (id, why) => {
  expect(fixed(id, built({ pipeline: false, fn: { buildMethod: null } }))).toMatch(why);
});

it.each([
  ["environment-variables", /^the lab does not play Lambda's decryption of environment variables/],
  ["code-cache-mismatch", /^the fix is a build for the function's runtime and architecture/],
] as const)("%s: not measured, and why", (id, why) => {
  expect(fixed(id, built())).toMatch(why);
});

it("deprecated-runtime is a runtime change, not a build's: measured only as the stand-in the lab runs the function on", () => {
  expect(fixed("deprecated-runtime", built({ fn: { runtime: "nodejs16.x" } }))).toBe(
    "the lab does not run nodejs16.x: the function is traced and measured on nodejs22.x, the runtime the fix moves it to",
  );
  expect(fixed("esbuild-target", esbuilt({}), withProperties({}))).toMatchObject({ Metadata: { BuildProperties: { Target: "node22" } } });
  const onOld = built({ pipeline: false, fn: { runtime: "nodejs14.x", buildMethod: "esbuild" } });
  expect(fixed("esbuild-target", onOld, withProperties({}))).toMatchObject({ Metadata: { BuildProperties: { Target: "node22" } } });
});

const scratch = mkdtempSync(join(tmpdir(), "warpstart-doctor-fixes-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** An app folder holding `template.yaml` with `text`: the folder and the template's path. */
function appWith(text: string): { app: string; templateFile: string } {
  const app = mkdtempSync(join(scratch, "app-"));
  writeFileSync(join(app, "template.yaml"), text);
  return { app, templateFile: join(app, "template.yaml") };
}

describe("the template of fixed copies", () => {
  const { app, templateFile } = appWith(
    `Transform: AWS::Serverless-2016-10-31
Globals:
  Function: { CodeUri: src/, Runtime: nodejs22.x }
Resources:
  Table: { Type: AWS::DynamoDB::Table }
  Deps: { Type: AWS::Serverless::LayerVersion, Properties: { ContentUri: layer/ } }
  Flow: { Type: AWS::Serverless::StateMachine, Properties: { DefinitionUri: statemachine/flow.asl.json } }
  Archived: { Type: AWS::Serverless::StateMachine, Properties: { DefinitionUri: s3://bucket/flow.asl.json } }
  Fn:
    Type: AWS::Serverless::Function
    Metadata: { BuildMethod: esbuild, BuildProperties: { Format: cjs } }
    Properties:
      Handler: a.handler
      AutoPublishAlias: live
      Environment: { Variables: { TABLE: !Ref Table } }
      Events: { Get: { Type: HttpApi, Properties: { Path: /a, Method: GET } } }
  Other: { Type: AWS::Serverless::Function, Properties: { Handler: b.handler, CodeUri: other/ } }
Outputs:
  FnArn: { Value: !GetAtt Fn.Arn }
`,
  );
  const fix = fixFor("commonjs", esbuilt({ Format: "cjs" })) as BuildFix;
  const template = fixesTemplate(templateFile, [{ function: "Fn", finding: {} as never, fix, copyId: "FnFixedCommonjs" }], new Set()) as {
    Globals: { Function: Record<string, unknown> };
    Resources: Record<string, TemplateResourceEntry>;
  };

  it("holds the fixed copies instead of the functions, and the app's other resources", () => {
    expect(Object.keys(template.Resources)).toEqual(["Table", "Deps", "Flow", "Archived", "FnFixedCommonjs"]);
    expect(template).not.toHaveProperty("Outputs");
  });

  it("a copy is the function with the fix, without its routes, alias or provisioned environments, naming the function it is made of", () => {
    expect(template.Resources.FnFixedCommonjs).toEqual({
      Type: "AWS::Serverless::Function",
      Metadata: { BuildMethod: "esbuild", BuildProperties: { Format: "esm", OutExtension: [".js=.mjs"] }, WarpstartCopyOf: "Fn" },
      Properties: { Handler: "a.handler", Environment: { Variables: { TABLE: { Ref: "Table" } } } },
    });
  });

  it("its paths are the app's, made absolute, a state machine's definition too (not an S3 one): the template lives elsewhere", () => {
    expect(template.Globals.Function.CodeUri).toBe(join(app, "src"));
    expect(template.Resources.Deps!.Properties!.ContentUri).toBe(join(app, "layer"));
    expect(template.Resources.Flow!.Properties!.DefinitionUri).toBe(join(app, "statemachine/flow.asl.json"));
    expect(template.Resources.Archived!.Properties!.DefinitionUri).toBe("s3://bucket/flow.asl.json");
  });
});

describe("the template of fixed copies, of an app whose functions name no CodeUri (SAM's default: the app's folder)", () => {
  const { app, templateFile } = appWith(
    `Transform: AWS::Serverless-2016-10-31
Globals:
  Function: { Runtime: nodejs14.x }
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Metadata: { BuildMethod: esbuild, BuildProperties: { EntryPoints: [functions/put-item.ts] } }
    Properties: { Handler: put-item.handler }
  Inline: { Type: AWS::Serverless::Function, Properties: { Handler: index.handler, InlineCode: "exports.handler = 1" } }
`,
  );
  const fix = fixFor("commonjs", esbuilt({})) as BuildFix;
  const copies = (["Fn", "Inline"] as const).map((fn) => ({ function: fn, finding: {} as never, fix, copyId: `${fn}Fixed` }));
  // As buildFixes passes them: the examined functions on a runtime the lab does not run.
  const standIns = standInIds([
    { logicalId: "Fn", runtime: "nodejs14.x" },
    { logicalId: "Inline", runtime: "nodejs14.x" },
  ]);
  const template = fixesTemplate(templateFile, copies, standIns) as { Resources: Record<string, TemplateResourceEntry> };

  it("a copy's CodeUri is the app's folder, where its EntryPoints are; inline code stays inline", () => {
    expect(template.Resources.FnFixed!.Properties!.CodeUri).toBe(app);
    expect(template.Resources.InlineFixed!.Properties).not.toHaveProperty("CodeUri");
  });

  it("a copy of a function on a runtime the lab does not run is built on nodejs22.x, as the function is", () => {
    expect(template.Resources.FnFixed!.Properties!.Runtime).toBe("nodejs22.x");
  });
});

describe("a measurement", () => {
  const sample = (round: number, initMs: number, warmE2eMs: number | null = null): Sample => ({ round, initMs, e2eMs: initMs + 5, durationMs: 3, warmE2eMs });
  const cellResult = (samples: Sample[], failures: CellResult["failures"] = []): CellResult => ({
    name: "x",
    function: "x",
    profile: "as built",
    runtime: "node22",
    functionName: "x",
    samples,
    initMs: samples.map((s) => s.initMs),
    e2eMs: samples.map((s) => s.e2eMs),
    failures,
  });

  it("pairs rounds both measured: p50s, the median difference (as it is − fixed) and the ratio", () => {
    const cost = measuredCost(cellResult([sample(0, 100), sample(1, 110), sample(2, 130)]), cellResult([sample(0, 80), sample(2, 100), sample(3, 1)]), "init");
    expect(cost).toMatchObject({ metric: "init", rounds: 2, asIsMs: 115, fixedMs: 90, deltaMs: 25, ratio: 115 / 90 });
  });

  it("a warm measurement reads the warm invokes, leaving out rounds whose warm invoke failed", () => {
    const cost = measuredCost(cellResult([sample(0, 100, 30), sample(1, 100, null)]), cellResult([sample(0, 100, 20), sample(1, 100, 20)]), "warm");
    expect(cost).toMatchObject({ metric: "warm", rounds: 1, deltaMs: 10, deltaCi95: null });
  });

  it("no round measured both: why, with the first failure", () => {
    const failure = { round: 0, phase: "cold" as const, errorType: "Runtime.ImportModuleError", message: "Cannot find module 'a'" };
    expect(measuredCost(cellResult([sample(0, 100)]), cellResult([], [failure]), "init")).toBe(
      "no round measured both: Runtime.ImportModuleError: Cannot find module 'a'",
    );
  });

  it("a function that fails every round as it is, and runs so built: how fast the build is, alone", () => {
    const failures = [0, 1, 2].map((round) => ({ round, phase: "cold" as const, errorType: "Runtime.InitError", message: "require() of ES Module x\nadvice" }));
    expect(measuredCost(cellResult([], failures), cellResult([sample(0, 90), sample(1, 130), sample(2, 100)]), "init")).toBe(
      "the function as it is fails every round (Runtime.InitError: require() of ES Module x), so there is no difference to give; this build completes: Init p50 100.0 ms (3 rounds)",
    );
  });
});

it.each([
  [
    "Building codeuri: /app\n\nBuild Failed\nError: NodejsNpmEsbuildBuilder:EsbuildBundle - Esbuild Failed: x\n\n    a.ts:3:26:\n1 error\n",
    "Error: NodejsNpmEsbuildBuilder:EsbuildBundle - Esbuild Failed: x",
  ],
  ["sam build failed (exit 1):\nsomething broke\n\n", "something broke"],
  ["", "sam build failed"],
])("SAM's reason for a failed build, in one line: %j", (output, line) => {
  expect(samFailureLine(output)).toBe(line);
});
