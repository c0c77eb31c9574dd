// npm run doctor on a real build: the fixture SAM app of the project's makefile pipeline
// (test/fixtures/sam-apps/doctor/makefile), built once by the global setup's `sam build` (other
// files read that build side by side; the doctor's own build: test/slow/doctor-builders.test.mts)
// and examined once, gives each function exactly the finding it is named after, and Clean none; each
// function's cold start traced in the lab; each fixable finding built fixed (its build without the
// finding) and measured against the function as it is, the others saying why not; each function's
// source built in this template's Warp and measured in the same run, or why not. The doctor's
// options and bad input: test/integration/doctor-options.test.mts; SAM's own esbuild and npm
// builders, a fix that does not build and a read-only --fix: test/slow/doctor-builders.test.mts.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RUNTIMES } from "../../core/runtimes.mts";
import { examineApp, DOCTOR_FIXTURES as FIXTURES, findingIds, measuredIds, profilesOf, ROUNDS, whyNotMeasured } from "../support/doctor.mts";

const MAKEFILE_APP = `${FIXTURES}/makefile/template.yaml`;
/** What the doctor says to do for a function it sent {} for want of an event. */
const giveOne = (logicalId: string) =>
  `give one in events/${logicalId}.json beside the template (the doctor, npx warpstart invoke and the bench send it), or to one invoke with --event FILE`;
const out = mkdtempSync(join(tmpdir(), "warpstart-doctor-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The makefile app, built and examined once; its functions are built in the pipeline's profiles already: Warp alone is asked for. */
let makefile: ReturnType<typeof examineApp>;
beforeAll(() => {
  makefile = examineApp(MAKEFILE_APP, "Warp", out, { build: false });
}, 600_000);

it("the project's makefile pipeline: each function has exactly the finding it is named after, Clean none", () => {
  expect(findingIds(makefile.report)).toEqual({
    Clean: [],
    RuntimeSdk: ["runtime-sdk"],
    CredentialProviders: ["credential-providers"],
    CommonJs: ["commonjs"],
    EnvironmentVariables: ["environment-variables"],
    SourceMaps: ["environment-variables", "source-maps"],
    KeepAliveOff: ["keep-alive-off"],
    CodeCacheMismatch: ["code-cache-mismatch"],
    InitError: ["init-error"],
    NonAwsHost: ["init-error"],
    InvokeError: ["invoke-error"],
    PublishedLayer: [],
    UserPoolClient: ["environment-variables"],
  });
});

it("--json: each function's name, runtime, findings (problems only, each measured or why not), passed checks and traced INIT", () => {
  const { report } = makefile;
  expect(report.skipped).toEqual([]);
  const runtimeSdk = report.functions.find((fn) => fn.name === "RuntimeSdk")!;
  expect(runtimeSdk).toEqual({
    name: "RuntimeSdk",
    runtime: "nodejs22.x",
    profiles: [{ profile: "Warp", measured: expect.objectContaining({ metric: "init", rounds: ROUNDS }), whyNotMeasured: null, note: null }],
    findings: [
      {
        id: "runtime-sdk",
        severity: "error",
        message: "imports @aws-sdk/client-sts unbundled: INIT resolves and loads the SDK file by file from the runtime's own copy (or a layer's)",
        fix: "bundle the SDK: esbuild without @aws-sdk/* in External (this project's Optimized or Warp profile) (docs/doctor.md#runtime-sdk)",
        measured: {
          metric: "init",
          rounds: ROUNDS,
          asIsMs: expect.any(Number),
          fixedMs: expect.any(Number),
          deltaMs: expect.any(Number),
          deltaCi95: expect.any(Array),
          ratio: expect.any(Number),
          ratioCi95: expect.any(Array),
        },
        whyNotMeasured: null,
      },
    ],
    passed: [
      "deprecated-runtime",
      "credential-providers",
      "commonjs",
      "environment-variables",
      "source-maps",
      "esbuild-target",
      "keep-alive-off",
      "code-cache-mismatch",
      "init-error",
      "invoke-error",
    ],
    bundle: { bytes: expect.any(Number), largestInputs: [{ path: `${FIXTURES}/makefile/src/functions/sts/index.mts`, bytes: expect.any(Number) }] },
    init: {
      initMs: expect.any(Number),
      phases: {
        beforeHandlerMs: expect.any(Number),
        loadingCodeMs: expect.any(Number),
        topLevelWorkMs: expect.any(Number),
        afterHandlerMs: expect.any(Number),
      },
      builtins: expect.arrayContaining(["node:https"]),
      heavyBuiltins: expect.any(Array),
      awsCalls: [{ service: "sts", operation: "GetCallerIdentity", startMs: expect.any(Number), ms: expect.any(Number), status: 200 }],
    },
    whyNotTraced: null,
    // Nothing in the template invokes it: the doctor sent it {}, and says so.
    labCaveat: `sent {} for want of an event (nothing in the template invokes it): ${giveOne("RuntimeSdk")}`,
  });
  const codeCache = report.functions.find((fn) => fn.name === "CodeCacheMismatch")!;
  expect(codeCache.runtime).toBe("nodejs24.x");
  expect(codeCache.findings[0]!.message).toBe(`its code cache was made by Node v${RUNTIMES.node22.version} and it runs on nodejs24.x, whose V8 rejects it`);
});

it("every finding a build fixes is measured, its fixed build without it; the others say why not", () => {
  expect(measuredIds(makefile.report)).toEqual({
    Clean: [],
    RuntimeSdk: ["runtime-sdk"],
    CredentialProviders: ["credential-providers"],
    CommonJs: ["commonjs"],
    EnvironmentVariables: [],
    SourceMaps: ["source-maps"],
    KeepAliveOff: [],
    CodeCacheMismatch: [],
    InitError: [],
    NonAwsHost: [],
    InvokeError: [],
    PublishedLayer: [],
    UserPoolClient: [],
  });
  expect(whyNotMeasured(makefile.report, "KeepAliveOff", "keep-alive-off")).toBe("keepAlive: false is in the function's code: the fix is a change to it");
  expect(whyNotMeasured(makefile.report, "EnvironmentVariables", "environment-variables")).toMatch(/^the lab does not play Lambda's decryption/);
  expect(whyNotMeasured(makefile.report, "CodeCacheMismatch", "code-cache-mismatch")).toMatch(
    /^the fix is a build for the function's runtime and architecture/,
  );
});

it("an INIT that fails in the lab: a finding with the runtime's error, and the rest examined", () => {
  const initError = makefile.report.functions.find((fn) => fn.name === "InitError")!;
  expect(initError.findings).toEqual([
    expect.objectContaining({
      id: "init-error",
      severity: "error",
      message: "InitError: INIT failed (init-error): Error: TABLE_NAME is not set",
      whyNotMeasured: "there is nothing to measure until INIT completes",
    }),
  ]);
  expect(initError).toMatchObject({ init: null, whyNotTraced: "its INIT failed" });
  expect(makefile.run.stdout).toMatch(/^init-error +error +not measured +fix what INIT throws/m);
});

it("an INIT that needs a host beyond AWS: init-error names the host the lab refused, and why", () => {
  const nonAws = makefile.report.functions.find((fn) => fn.name === "NonAwsHost")!;
  expect(nonAws.findings[0]!.message).toMatch(
    /^NonAwsHost: INIT failed \(init-error\): .*\(the lab refused its connection to api\.example\.com:443: it reaches nothing beyond this machine but its local AWS; on Lambda the function reaches it\)$/,
  );
});

it("a handler that fails on the trigger's event once INIT is done: invoke-error with the event it was given, not init-error", () => {
  const invokeError = makefile.report.functions.find((fn) => fn.name === "InvokeError")!;
  expect(invokeError.findings).toEqual([
    expect.objectContaining({
      id: "invoke-error",
      severity: "warn",
      message: expect.stringMatching(
        /^InvokeError: the first invoke, given an event shaped for its SQS trigger Orders \(sam local generate-event\), failed \(error\): SyntaxError: Unexpected token/,
      ),
      fix: expect.stringContaining("put one it does in events/<LogicalId>.json beside the template"),
    }),
  ]);
  expect(invokeError.passed).toContain("init-error");
  expect(invokeError).toMatchObject({ init: null, whyNotTraced: "its first invoke failed" });
});

it("what the lab cannot give one function costs only that function's trace: a published layer (traced without it, said so), an Environment it cannot evaluate", () => {
  const functions = makefile.report.functions;
  expect(functions.find((fn) => fn.name === "PublishedLayer")).toMatchObject({
    whyNotTraced: null,
    init: expect.objectContaining({ initMs: expect.any(Number) }),
    labCaveat:
      "traced and measured without its layer arn:aws:lambda:us-east-1:094274105915:layer:AWSLambdaPowertoolsTypeScriptV2:41: the lab cannot fetch a published layer; put its content (the files of the layer's zip) in local-aws/layers/<its name>/ beside the template, and the lab gives it to the function; " +
      `sent {} for want of an event (nothing in the template invokes it): ${giveOne("PublishedLayer")}`,
  });
  expect(functions.find((fn) => fn.name === "UserPoolClient")).toMatchObject({
    init: expect.objectContaining({ initMs: expect.any(Number) }),
    whyNotTraced: null,
    labCaveat: expect.stringContaining(
      "the lab cannot make the value of USER_POOL_ID (!Ref UserPool: warpstart-placeholder.userpool.invalid), so it gets a placeholder",
    ),
    findings: [expect.objectContaining({ id: "environment-variables", whyNotMeasured: expect.stringContaining("the lab does not play Lambda's decryption") })],
  });
  expect(makefile.run.stdout).toContain("Note: traced and measured without its layer");
});

it("the terminal's report: a table per function, what each fix bought, the fix and its section of docs/doctor.md, progress on stderr", () => {
  const { run } = makefile;
  expect(run.stdout).toMatch(/^CommonJs \(nodejs22\.x\): 1 finding, 10 checks passed; INIT loads [\d.]+ KiB$/m);
  expect(run.stdout).toMatch(/^commonjs +warn +[+-][\d.]+ ms \[[-\d.]+, [-\d.]+\] +build an ES module .* \(docs\/doctor\.md#commonjs\)$/m);
  expect(run.stdout).toMatch(/^ {4}measured: Init p50 [\d.]+ ms as it is, [\d.]+ ms fixed \(×[\d.]+ \[[\d.]+, [\d.]+\], 2 rounds\)$/m);
  expect(run.stdout).toMatch(/^keep-alive-off +warn +not measured +leave the SDK's https agent/m);
  expect(run.stdout).toContain(
    `Measured Δ: what the fix buys, the median of the per-round differences (as it is − fixed) with its 95% CI, Init Duration unless said. A profile (Warp, Optimized, or one --profiles names):`,
  );
  expect(run.stdout).toContain(`${ROUNDS} rounds in the lab, the function, its fixes and its profiles' builds in a shuffled order each round`);
  expect(run.stderr).toContain("== examining InitError (9/13)");
  expect(run.stderr).toContain("== tracing a cold start of InitError (9/13)");
  expect(run.stderr).toMatch(/^== measuring 4 fixes and \d+ profile builds: \d+ cold starts, order shuffled per round$/m);
  expect(readFileSync(join(out, "report.md"), "utf8")).toMatch(/\| commonjs \| warn \| [+-][\d.]+ ms \[[-\d.]+, [-\d.]+\] \| build an ES module/);
});

it("what this template would buy each function: its source built by the pipeline in Warp, measured against it, or why not", () => {
  const makefileProfiles = profilesOf(makefile.report);
  expect(makefileProfiles).toMatchObject({
    Clean: ["Warp"],
    RuntimeSdk: ["Warp"],
    CodeCacheMismatch: ["Warp: it is built with the Warp profile already"],
    InvokeError: ["Warp"],
    PublishedLayer: ["Warp"],
  });
  // Where Warp cannot be measured, why: an INIT that fails so built too (a host beyond AWS, a throw), with the runtime's error; an Environment the lab cannot evaluate.
  expect(makefileProfiles).toMatchObject({
    InitError: ["Warp: no round measured both: Runtime.InitError: Error: TABLE_NAME is not set"],
    NonAwsHost: ["Warp: no round measured both: Runtime.InitError: TypeError: fetch failed"],
    UserPoolClient: ["Warp"],
  });
  // The terminal: Warp first under each function.
  expect(makefile.run.stdout).toMatch(/^Clean \(nodejs22\.x\): .*\nWarp: [\d.]+ → [\d.]+ ms, [+-][\d.]+ ms \[[-\d.]+, [-\d.]+\]$/m);
});
