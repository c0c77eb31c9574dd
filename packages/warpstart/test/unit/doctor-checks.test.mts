// Each of the doctor's static checks on a small synthetic function: what it finds, and what it
// leaves alone (doctor/checks.mts). The fixtures' real builds are in test/integration/doctor.test.mts.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UNUSED_CREDENTIAL_PROVIDERS } from "../../builder/profiles.mts";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import type { BuiltFunction } from "../../doctor/artifact.mts";
import { CHECKS, examine, finding, PROVIDER_MARKERS, STATIC_CHECK_IDS } from "../../doctor/checks.mts";
import { runtimeLabel, whyNotExamined } from "../../doctor/lambda-runtimes.mts";
import { built, templateFunction } from "../support/built-function.mts";
import { DEMO_ROOT } from "../support/demo.mts";

const foundIds = (fn: BuiltFunction) => examine(fn).findings.map((found) => found.id);

it("every check has its section in docs/doctor.md, the place each finding's fix links to", () => {
  const doc = readFileSync(join(DEMO_ROOT, "docs/doctor.md"), "utf8");
  const anchors = [...doc.matchAll(/<a id="([^"]+)"><\/a>/g)].map((match) => match[1]);
  const linked = CHECKS.map(({ id }) => finding(id, "found").fix.match(/ \(docs\/doctor\.md#([^)]+)\)$/)?.[1]);
  expect(linked.filter((anchor) => !anchor || !anchors.includes(anchor))).toEqual([]);
});

it("each check has an id of its own (a finding names its check by it)", () => {
  const ids = CHECKS.map((check) => check.id);
  expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
});

it("a clean function has no findings and passes every check", () => {
  const report = examine(built());
  expect(report.findings).toEqual([]);
  expect(report.passed).toEqual(STATIC_CHECK_IDS);
});

it("every finding has its check's severity, a fix linking to its section of docs/doctor.md, and nothing measured: that is the measuring step's", () => {
  const [found] = examine(built({ format: "cjs" })).findings;
  expect(found).toEqual({
    id: "commonjs",
    severity: "warn",
    message: expect.stringContaining("its handler index.mjs is CommonJS"),
    fix: expect.stringMatching(/ \(docs\/doctor\.md#commonjs\)$/),
    measured: null,
    whyNotMeasured: "the doctor ran its static checks only (--static)",
  });
});

describe("runtime-sdk", () => {
  it("finds SDK packages the artifact leaves to the runtime's copy", () => {
    const fn = built({
      graph: { bundledPackages: [], runtimeImports: ["@aws-sdk/client-sts", "@smithy/core/protocols"], ownFiles: [], bundle: { bytes: 0, largestInputs: [] } },
    });
    expect(foundIds(fn)).toEqual(["runtime-sdk"]);
    expect(examine(fn).findings[0]!.message).toMatch(/^imports @aws-sdk\/client-sts, @smithy\/core\/protocols unbundled/);
  });

  it("says where Node finds them: the artifact's own node_modules (SAM's npm builder ships them there), else the runtime's copy", () => {
    const artifact = mkdtempSync(join(tmpdir(), "warpstart-checks-sdk-"));
    try {
      mkdirSync(join(artifact, "node_modules/@aws-sdk/client-sts"), { recursive: true });
      writeFileSync(join(artifact, "node_modules/@aws-sdk/client-sts/package.json"), "{}");
      const graph = {
        bundledPackages: [],
        runtimeImports: ["@aws-sdk/client-sts", "@aws-sdk/client-s3"],
        ownFiles: [],
        bundle: { bytes: 0, largestInputs: [] },
      };
      expect(examine(built({ fn: { codeDir: artifact }, graph })).findings[0]!.message).toBe(
        "imports @aws-sdk/client-sts, @aws-sdk/client-s3 unbundled: INIT resolves and loads the SDK file by file from its own node_modules (@aws-sdk/client-sts) and the runtime's own copy (or a layer's)",
      );
      expect(examine(built({ fn: { codeDir: artifact }, graph: { ...graph, runtimeImports: ["@aws-sdk/client-sts"] } })).findings[0]!.message).toBe(
        "imports @aws-sdk/client-sts unbundled: INIT resolves and loads the SDK file by file from its own node_modules",
      );
    } finally {
      rmSync(artifact, { recursive: true, force: true });
    }
  });

  it("leaves alone the credential providers left out on purpose, and other packages", () => {
    const runtimeImports = [...UNUSED_CREDENTIAL_PROVIDERS, "sharp"];
    expect(foundIds(built({ graph: { bundledPackages: [], runtimeImports, ownFiles: [], bundle: { bytes: 0, largestInputs: [] } } }))).toEqual([]);
  });
});

describe("credential-providers", () => {
  it("finds the providers Lambda never reaches in a build's metafile", () => {
    const fn = built({
      graph: {
        bundledPackages: ["@aws-sdk/client-sts", "@aws-sdk/credential-provider-ini", "@aws-sdk/credential-provider-env"],
        runtimeImports: [],
        ownFiles: [],
        bundle: { bytes: 0, largestInputs: [] },
      },
    });
    expect(foundIds(fn)).toEqual(["credential-providers"]);
    expect(examine(fn).findings[0]!.message).toMatch(/^bundles @aws-sdk\/credential-provider-ini: /);
  });

  it("finds them by their own log lines in a bundle with no metafile (SAM's esbuild builder, minified)", () => {
    const text = 'var a=async(e)=>{e.logger?.debug("@aws-sdk/credential-provider-sso - fromSSO")};var b="/latest/meta-data/iam/security-credentials/";';
    const fn = built({ ownCode: [{ file: "app.mjs", text }] });
    expect(examine(fn).findings.map((found) => found.message)).toEqual([
      expect.stringMatching(/^bundles @aws-sdk\/credential-provider-sso, @smithy\/credential-provider-imds: /),
    ]);
  });

  it("the default chain's own log lines do not count as the providers it would import", () => {
    const text = 'debug("@aws-sdk/credential-provider-node - defaultProvider::fromIni")';
    expect(foundIds(built({ ownCode: [{ file: "app.mjs", text }] }))).toEqual([]);
  });

  it.each(UNUSED_CREDENTIAL_PROVIDERS)("%s's marker is in its installed code (ES and CommonJS builds)", (pkg) => {
    const filesOf = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesOf(join(dir, entry.name)) : [join(dir, entry.name)]));
    for (const dist of ["dist-es", "dist-cjs"]) {
      const code = filesOf(join(PACKAGE_ROOT, "published/node_modules", pkg, dist)).map((file) => readFileSync(file, "utf8"));
      expect(code.some((text) => text.includes(PROVIDER_MARKERS[pkg]!))).toBe(true);
    }
  });
});

it("commonjs: a CommonJS handler", () => {
  expect(foundIds(built({ handlerFile: "app.js", format: "cjs" }))).toEqual(["commonjs"]);
});

it("environment-variables: names each variable", () => {
  const fn = built({ fn: { environment: { TABLE: "t", STAGE: "prod" } } });
  expect(examine(fn).findings.map((found) => [found.id, found.severity, found.message])).toEqual([
    ["environment-variables", "info", "2 environment variables (TABLE, STAGE): Lambda decrypts them on every cold start"],
  ]);
});

describe("source-maps", () => {
  it.each([
    ["NODE_OPTIONS", { fn: { environment: { NODE_OPTIONS: "--max-old-space-size=400 --enable-source-maps" } } }, /^NODE_OPTIONS has --enable-source-maps/],
    ["the build's Sourcemap", { fn: { buildMethod: "esbuild", buildProperties: { Sourcemap: true, Target: "node22" } } }, /^the build writes source maps/],
    ["a map beside the handler", { besideHandler: ["index.mjs", "index.mjs.map"] }, /^the artifact ships index\.mjs\.map$/],
  ])("finds %s", (_, changes, message) => {
    const findings = examine(built(changes as Parameters<typeof built>[0])).findings.filter((found) => found.id === "source-maps");
    expect(findings.map((found) => found.message)).toEqual([expect.stringMatching(message)]);
  });

  it("Sourcemap: false is none", () => {
    expect(foundIds(built({ fn: { buildMethod: "esbuild", buildProperties: { Sourcemap: false, Target: "node22" } } }))).toEqual([]);
  });
});

describe("esbuild-target", () => {
  const esbuild = (buildProperties: Record<string, unknown>) => built({ fn: { buildMethod: "esbuild", buildProperties } });

  it.each(["es2020", "es2021", "node14", "node14.7", "node20,es2019", "es6"])("%s is too old for top-level await", (Target) => {
    expect(foundIds(esbuild({ Target }))).toEqual(["esbuild-target"]);
  });

  it.each(["es2022", "esnext", "node14.8", "node22", "node22,chrome100"])("%s has it", (Target) => {
    expect(foundIds(esbuild({ Target }))).toEqual([]);
  });

  it("SAM's esbuild builder targets es2020 when BuildProperties has no Target", () => {
    expect(examine(esbuild({})).findings[0]!.message).toBe(
      "esbuild targets es2020 (SAM's default: BuildProperties has no Target), too old for top-level await: an ES module cannot await INIT's work",
    );
  });

  it("is SAM's esbuild builder's setting only: this project's makefile pipeline targets node22", () => {
    expect(foundIds(built({ fn: { buildProperties: { Target: "es2020" } } }))).toEqual([]);
  });
});

describe("keep-alive-off", () => {
  const withCode = (text: string, file = "src/sts.mts") => built({ ownCode: [{ file, text }] });

  it.each([
    ["an option of the client", "const sts = new STSClient({\n  requestHandler: { httpsAgent: { keepAlive: false } },\n});", "src/sts.mts:2"],
    ["a minified agent", 'import{Agent as a}from"node:https";const b=new a({keepAlive:!1});', "app.mjs:1"],
    ["a quoted key", 'const agent = new Agent({ "keepAlive": false });', "app.mjs:1"],
  ])("finds keepAlive: false in %s", (_, text, place) => {
    const file = place.split(":")[0]!;
    expect(examine(withCode(text, file)).findings.map((found) => found.message)).toEqual([
      `keepAlive: false at ${place}: every AWS call opens a new TLS connection`,
    ]);
  });

  it("finds this project's build-time constant KEEP_ALIVE: false, which its identity handlers read", () => {
    const fn = built({ fn: { buildProperties: { Profile: "Optimized", Define: { KEEP_ALIVE: false } } } });
    expect(examine(fn).findings.map((found) => found.message)).toEqual([
      "the build defines KEEP_ALIVE: false (BuildProperties.Define): every AWS call opens a new TLS connection",
    ]);
  });

  it.each([
    ["keep-alive on", "new Agent({ keepAlive: true })"],
    ["a variable", "new Agent({ keepAlive: wanted })"],
    ["one branch of a condition (run time decides)", "new STSClient(keepAlive ? {} : { requestHandler: { httpsAgent: { keepAlive: false } } })"],
    ["an if", "if (slow) agent = new Agent({ keepAlive: false });"],
    ["a fallback", "const options = given || { keepAlive: false };"],
  ])("leaves alone %s", (_, text) => {
    expect(foundIds(withCode(text))).toEqual([]);
  });
});

describe("code-cache-mismatch", () => {
  const artifact = mkdtempSync(join(tmpdir(), "warpstart-checks-cache-"));
  afterAll(() => rmSync(artifact, { recursive: true, force: true }));
  /** An artifact whose code cache files (each with its header, as the build writes it: builder/code-cache-child.mjs) were made by `node`. */
  const withCaches = (files: string[], node: string, fn: Partial<BuiltFunction["fn"]> = {}) => {
    for (const file of files) writeFileSync(join(artifact, file), `${JSON.stringify({ chunk: "0123456789abcdef", deferred: [], node })}\n\u0000cache`);
    return built({ fn: { codeDir: artifact, ...fn }, besideHandler: ["index.mjs", "sdk.cjs", ...files] });
  };
  afterEach(() => {
    for (const file of readdirSync(artifact)) rmSync(join(artifact, file));
  });

  it("a Warp cache of the function's architecture, made by its Node, is fine", () => {
    expect(foundIds(withCaches(["sdk.arm64.cache"], "v22.23.3"))).toEqual([]);
    expect(foundIds(withCaches(["sdk.arm64.cache"], "v24.21.0", { runtime: "nodejs24.x" }))).toEqual([]);
  });

  it("finds a cache for another architecture only", () => {
    const fn = withCaches(["sdk.x64.cache"], "v22.23.3");
    expect(examine(fn).findings.map((found) => [found.id, found.severity, found.message])).toEqual([
      ["code-cache-mismatch", "error", "it ships sdk.x64.cache and runs on arm64, whose V8 reads sdk.arm64.cache: none, so INIT compiles the SDK"],
    ]);
  });

  it("finds a cache made by another Node than the function runs on", () => {
    const fn = withCaches(["sdk.arm64.cache"], "v22.23.3", { runtime: "nodejs24.x" });
    expect(examine(fn).findings.map((found) => found.message)).toEqual([
      "its code cache was made by Node v22.23.3 and it runs on nodejs24.x, whose V8 rejects it",
    ]);
  });
});

describe("deprecated-runtime", () => {
  const onRuntime = (runtime: string, today: string) =>
    examine(built({ fn: { runtime } }), today).findings.filter((found) => found.id === "deprecated-runtime");

  it("finds a runtime past its deprecation date, with the dates Lambda blocks creating and updating functions on it", () => {
    expect(onRuntime("nodejs14.x", "2026-11-25")).toEqual([
      expect.objectContaining({
        severity: "error",
        message:
          "nodejs14.x is deprecated since 2023-12-04 (no more security patches; function creation blocked since 2024-01-09, updates blocked from 2027-03-03)",
      }),
    ]);
    expect(onRuntime("nodejs20.x", "2026-11-25")[0]!.message).toMatch(/^nodejs20\.x is deprecated since 2026-04-30 /);
  });

  it("leaves alone a runtime until its deprecation date", () => {
    expect(onRuntime("nodejs22.x", "2027-04-29")).toEqual([]);
    expect(onRuntime("nodejs22.x", "2027-04-30")).toHaveLength(1);
    expect(onRuntime("nodejs24.x", "2026-11-25")).toEqual([]);
  });
});

describe("which functions the doctor examines", () => {
  it.each(["nodejs10.x", "nodejs12.x", "nodejs14.x", "nodejs16.x", "nodejs18.x", "nodejs20.x", "nodejs22.x", "nodejs24.x"])("%s", (runtime) => {
    expect(whyNotExamined(templateFunction({ runtime }))).toBeNull();
  });

  it("this project's custom runtimes, by their layer", () => {
    const fn = templateFunction({ runtime: "provided.al2023", layers: [{ logicalId: "BunRuntime", contentDir: "." }] });
    expect(whyNotExamined(fn)).toBeNull();
    expect(runtimeLabel(fn)).toBe("bun (provided.al2023)");
  });

  it.each([
    [
      "python3.13",
      [],
      "python3.13 is not Node.js: the doctor examines Lambda's Node.js runtimes (nodejs24.x back to nodejs) and this project's deno and bun runtimes",
    ],
    ["nodejs26.x", [], "nodejs26.x is not a runtime Lambda has had: the doctor examines"],
    ["provided.al2023", [{ logicalId: "MyRuntime", contentDir: "." }], "a custom runtime without this project's runtime layer: the doctor examines"],
    [undefined, [], "it has no Runtime (a container image): the doctor examines zip functions"],
  ])("not %s", (runtime, layers, why) => {
    expect(whyNotExamined(templateFunction({ runtime, layers }))).toContain(why);
  });
});

describe("commonjs's fix on SAM esbuild's build", () => {
  const dir = mkdtempSync(join(tmpdir(), "doctor-commonjs-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const fixOf = (code: string) => {
    mkdirSync(join(dir, "src"), { recursive: true });
    writeFileSync(join(dir, "src/get-uuid.ts"), code);
    const fn = { handler: "get-uuid.handler", buildMethod: "esbuild", buildProperties: { EntryPoints: ["src/get-uuid.ts"] } };
    // The artifact's CodeUri is SAM's build; the source's, the app's folder.
    const source = templateFunction({ ...fn, codeDir: dir });
    return CHECKS.find((check) => check.id === "commonjs")!.fix!.build!(built({ format: "cjs", pipeline: false, fn, source }));
  };

  it("a source that exports its handler through CommonJS: not built as an ES module, which would leave it unexported, and why", () => {
    expect(fixOf("import { randomUUID } from 'node:crypto';\nexports.handler = async () => randomUUID();\n")).toEqual({
      why: "its source src/get-uuid.ts exports the handler through CommonJS (exports.handler =), which an ES module build leaves unexported: write it as an ES export first",
    });
  });

  it("a source with ES exports: built as an ES module", () => {
    expect(fixOf("export const handler = async () => 1;\n")).toMatchObject({ metric: "init" });
  });
});
