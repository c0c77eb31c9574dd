// Where the doctor's builds of a function in this template's profiles read its source, as the
// function's own build reads it, and how what each build bought reaches the report.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildFailure, initOutputExcerpt } from "../../builder/code-cache.mts";
import { pipelineSource, sourceFormat } from "../../builder/handler.mts";
import type { ProfileResult } from "../../doctor/findings.mts";
import { profileComparisons, REJECTED_CACHE_NOTE } from "../../doctor/profile-builds.mts";
import { templateFunction } from "../support/built-function.mts";

describe("the module format a profile's build uses: what adopt writes", () => {
  const app = mkdtempSync(join(tmpdir(), "warpstart-format-"));
  afterAll(() => rmSync(app, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    writeFileSync(join(app, name), text);
    return join(app, name);
  };

  it("SAM's esbuild builder: its Format, CommonJS where it has none (as SAM builds it)", () => {
    const source = file("app.ts", "export const handler = async () => 1;\n");
    expect(sourceFormat(templateFunction({ codeDir: app, buildMethod: "esbuild" }), source)).toBe("cjs");
    expect(sourceFormat(templateFunction({ codeDir: app, buildMethod: "esbuild", buildProperties: { Format: "esm" } }), source)).toBe("esm");
  });

  it("SAM's npm builder: the source as the runtime reads it, so a CommonJS handler keeps what ES modules refuse (a sloppy-mode global)", () => {
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", version: "1.0.0" }));
    const sloppy = file("sloppy.js", "client = {};\nexports.handler = async () => client;\n");
    expect(sourceFormat(templateFunction({ codeDir: app, buildMethod: null }), sloppy)).toBe("cjs");
    expect(sourceFormat(templateFunction({ codeDir: app, buildMethod: null }), file("module.mjs", "export const handler = async () => 1;\n"))).toBe("esm");
  });
});

describe("the source a profile's build reads", () => {
  it("SAM's esbuild builder: its first EntryPoints entry, relative to CodeUri, with the Handler's export (SAM names the output after the entry alone)", () => {
    const fn = templateFunction({
      codeDir: "/app",
      handler: "put-item.handler",
      buildMethod: "esbuild",
      buildProperties: { EntryPoints: ["functions/put-item.ts", "functions/other.ts"] },
    });
    expect(pipelineSource(fn, false)).toEqual({ codeDir: "/app", handler: "functions/put-item.handler" });
  });

  it("an EntryPoints string (one entry) and a .mjs entry", () => {
    const fn = templateFunction({ codeDir: "/app/hello", handler: "app.lambdaHandler", buildMethod: "esbuild", buildProperties: { EntryPoints: "app.mjs" } });
    expect(pipelineSource(fn, false)).toEqual({ codeDir: "/app/hello", handler: "app.lambdaHandler" });
  });

  it("SAM's npm builder and this project's Makefile: the Handler names the module in CodeUri", () => {
    const npm = templateFunction({ codeDir: "/app", handler: "src/handlers/get-all-items.getAllItemsHandler", buildMethod: null });
    expect(pipelineSource(npm, false)).toEqual({ codeDir: "/app", handler: "src/handlers/get-all-items.getAllItemsHandler" });
    const pipeline = templateFunction({ codeDir: "/warpstart", handler: "src/functions/hello/index.handler", buildMethod: "makefile" });
    expect(pipelineSource(pipeline, true)).toEqual({ codeDir: "/warpstart", handler: "src/functions/hello/index.handler" });
  });

  it("SAM's esbuild builder without EntryPoints: the Handler's module, as SAM bundles it", () => {
    const fn = templateFunction({ codeDir: "/app/src", handler: "sts.handler", buildMethod: "esbuild", buildProperties: { Format: "esm" } });
    expect(pipelineSource(fn, false)).toEqual({ codeDir: "/app/src", handler: "sts.handler" });
  });

  it("says why when it cannot tell: another Makefile, a builder the pipeline does not replace", () => {
    expect(pipelineSource(templateFunction({ buildMethod: "makefile" }), false)).toEqual({
      why: "it is built by its own Makefile, which does not say which source it builds",
    });
    expect(pipelineSource(templateFunction({ buildMethod: "nodejs_npm_esbuild_custom" }), false)).toEqual({
      why: "the pipeline does not build what SAM's nodejs_npm_esbuild_custom builder builds",
    });
  });
});

it("a profile's measurement, or why there is none, lands on the function's result for that profile", () => {
  const result: ProfileResult = { profile: "Warp", measured: null, whyNotMeasured: "not yet", note: null };
  const [comparison] = profileComparisons({ planned: [{ function: "Fn", profile: "Warp", copyId: "FnAsWarp", result }] });
  expect(comparison).toMatchObject({ function: "Fn", copyId: "FnAsWarp", label: "Fn as Warp", metric: "init" });
  comparison!.record("no round measured both", undefined);
  expect(result).toMatchObject({ measured: null, whyNotMeasured: "no round measured both" });
  const cost = {
    metric: "init" as const,
    rounds: 3,
    asIsMs: 130,
    fixedMs: 75,
    deltaMs: 55,
    deltaCi95: [50, 60] as [number, number],
    ratio: 1.7,
    ratioCi95: null,
  };
  comparison!.record(cost, { codeCache: "accepted" });
  expect(result).toEqual({ profile: "Warp", measured: cost, whyNotMeasured: null, note: null });
  // A cache V8 refused is said beside the measurement, on the doctor's terminal as in its report.
  comparison!.record(cost, { codeCacheRejected: true });
  expect(result).toEqual({ profile: "Warp", measured: cost, whyNotMeasured: null, note: REJECTED_CACHE_NOTE });
});

it("a failed build in one line: the builder's first, with the error INIT threw where that is what failed", () => {
  const initFailed = [
    "Warp builds Locations's V8 code cache by running its INIT, against a local AWS that holds only template.yaml's resources, and that INIT failed.",
    "INIT's output:",
    "file:///task/app.mjs:12",
    "  ddbClient = new DynamoDBClient({});",
    "ReferenceError: ddbClient is not defined",
    "    at file:///task/app.mjs:12:13",
  ].join("\n");
  expect(buildFailure(initFailed)).toBe(
    "Warp builds Locations's V8 code cache by running its INIT, against a local AWS that holds only template.yaml's resources, and that INIT failed. (ReferenceError: ddbClient is not defined)",
  );
  // Node prints a thrown error's stack and properties below it, often more lines than the excerpt holds: the error stays in it.
  const thrownEarly = [
    "file:///task/index.bundle.mjs:43071",
    "  const url = new URL(process.env.GRAPHQL_URL);",
    "              ^",
    "",
    "TypeError: Invalid URL",
    ...Array.from({ length: 12 }, (_, i) => `    at frame${i} (node:internal/url:${i})`),
    "  code: 'ERR_INVALID_URL',",
    "  input: 'warpstart-placeholder.graphqlurl.invalid'",
    "}",
    "",
    "Node.js v24.21.0",
  ].join("\n");
  const said =
    "NodeCompileCache builds Bedrock's V8 code cache by running its INIT, against a local AWS that holds only template.yaml's resources, and that INIT failed.";
  expect(buildFailure(`${said}\nINIT's output:\n${initOutputExcerpt(thrownEarly)}`)).toBe(`${said} (TypeError: Invalid URL)`);
  expect(initOutputExcerpt(thrownEarly).split("\n")).toHaveLength(15);
  expect(buildFailure('Locations: esbuild cannot bundle it: app.js:5: Could not resolve "aws-sdk"\nLocations: another line')).toBe(
    'Locations: esbuild cannot bundle it: app.js:5: Could not resolve "aws-sdk"',
  );
});
