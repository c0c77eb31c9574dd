// npm run doctor on an app built by SAM's own esbuild builder (and its npm builder: Unbundled), the
// fixture app test/fixtures/sam-apps/doctor/esbuild, built and examined once: each function has
// exactly the findings it is named after, and Clean none; what each finding names; which fixes are
// measured; its cold starts traced (a nodejs14.x function on the runtime the fix moves it to); its
// source built in this template's Optimized and Warp and measured. A fix that does not build costs
// only its own measurement; --fix on a read-only template writes nothing. (The project's makefile
// pipeline, --fix, --static and bad input: test/integration/doctor.test.mts.)
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DoctorReport } from "../../doctor/findings.mts";
import { doctor, examineApp, DOCTOR_FIXTURES as FIXTURES, findingIds, measuredIds, outputOf, profilesOf, whyNotMeasured } from "../support/doctor.mts";

const out = mkdtempSync(join(tmpdir(), "warpstart-doctor-builders-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

let esbuild: ReturnType<typeof examineApp>;
beforeAll(() => {
  esbuild = examineApp(`${FIXTURES}/esbuild/template.yaml`, "Optimized,Warp", out);
}, 600_000);

it("the doctor builds the app itself, saying so", () => {
  expect(esbuild.run.stderr).toContain(`== sam build in ${FIXTURES}/esbuild`);
});

it("SAM's esbuild builder (and its npm builder, Unbundled): each function has exactly the findings it is named after, Clean none", () => {
  expect(findingIds(esbuild.report)).toEqual({
    Clean: [],
    RuntimeSdk: ["runtime-sdk"],
    CredentialProviders: ["credential-providers"],
    CommonJs: ["commonjs"],
    CommonJsDependencies: ["commonjs"],
    EsbuildTarget: ["esbuild-target"],
    SamDefaults: ["commonjs", "esbuild-target"],
    SourceMaps: ["environment-variables", "source-maps"],
    KeepAliveOff: ["keep-alive-off"],
    Unbundled: ["runtime-sdk"],
    OnNode14: ["deprecated-runtime", "esbuild-target"],
  });
});

it("what each finding found names the place: the variables, the line that turns keep-alive off, the providers bundled", () => {
  const messages = Object.fromEntries(esbuild.report.functions.map((fn) => [fn.name, fn.findings.map((found) => found.message)]));
  expect(messages.SourceMaps).toEqual([
    "1 environment variable (NODE_OPTIONS): Lambda decrypts them on every cold start",
    expect.stringMatching(
      /^NODE_OPTIONS has --enable-source-maps: .*; the build writes source maps \(BuildProperties.Sourcemap: true\); the artifact ships plain\.mjs\.map$/,
    ),
  ]);
  expect(messages.KeepAliveOff).toEqual([expect.stringMatching(/^keepAlive: false at no-keep-alive\.mjs:\d+: every AWS call opens a new TLS connection$/)]);
  expect(messages.CredentialProviders).toEqual([expect.stringMatching(/^bundles @aws-sdk\/credential-provider-http, .*@smithy\/credential-provider-imds: /)]);
  expect(messages.SamDefaults![1]).toBe(
    "esbuild targets es2020 (SAM's default: BuildProperties has no Target), too old for top-level await: an ES module cannot await INIT's work",
  );
});

it("every finding a build fixes is measured; SAM's esbuild builder runs a CommonJS plain.js as CommonJS, in the lab as on Lambda", () => {
  expect(measuredIds(esbuild.report)).toEqual({
    Clean: [],
    RuntimeSdk: ["runtime-sdk"],
    CredentialProviders: ["credential-providers"],
    CommonJs: ["commonjs"],
    CommonJsDependencies: ["commonjs"],
    EsbuildTarget: ["esbuild-target"],
    SamDefaults: ["commonjs", "esbuild-target"],
    SourceMaps: ["source-maps"],
    KeepAliveOff: [],
    Unbundled: [],
    OnNode14: ["esbuild-target"],
  });
  expect(whyNotMeasured(esbuild.report, "Unbundled", "runtime-sdk")).toMatch(/^the function is not bundled \(SAM's npm builder\)/);
});

it("each function's cold start, traced: Clean's one INIT call, the builtins its import loaded", () => {
  const clean = esbuild.report.functions.find((fn) => fn.name === "Clean")!;
  expect(clean.init!.awsCalls.map((call) => `${call.service} ${call.operation}`)).toEqual(["sts GetCallerIdentity"]);
  expect(clean.init!.builtins).toEqual(expect.arrayContaining(["node:tls", "node:https"]));
  const plain = esbuild.report.functions.find((fn) => fn.name === "EsbuildTarget")!;
  expect(plain.init).toMatchObject({ awsCalls: [], phases: { topLevelWorkMs: 0 } });
  // A runtime SAM no longer builds and the lab does not run: its first finding, and traced on the runtime the fix moves it to.
  const old = esbuild.report.functions.find((fn) => fn.name === "OnNode14")!;
  expect(old).toMatchObject({
    runtime: "nodejs14.x",
    init: { awsCalls: [] },
    whyNotTraced: null,
    labCaveat:
      "built, traced and measured on nodejs22.x: SAM CLI no longer builds nodejs14.x and the lab runs nodejs18.x, nodejs20.x, nodejs22.x, nodejs24.x, not nodejs14.x; " +
      "sent {} for want of an event (nothing in the template invokes it): give one in events/OnNode14.json beside the template (the doctor, npx warpstart invoke and the bench send it), or to one invoke with --event FILE",
  });
  expect(old.findings[0]).toMatchObject({
    id: "deprecated-runtime",
    severity: "error",
    message: expect.stringMatching(/^nodejs14\.x is deprecated since 2023-12-04 /),
    whyNotMeasured: "the lab does not run nodejs14.x: the function is traced and measured on nodejs22.x, the runtime the fix moves it to",
  });
});

it("what this template would buy each function: the Handler's module (or EntryPoints) built from source with its dependencies, in each profile asked for", () => {
  expect(profilesOf(esbuild.report)).toEqual({
    Clean: ["Optimized", "Warp"],
    RuntimeSdk: ["Optimized", "Warp"],
    CredentialProviders: ["Optimized", "Warp"],
    CommonJs: ["Optimized", "Warp"],
    CommonJsDependencies: ["Optimized", "Warp"],
    EsbuildTarget: ["Optimized", "Warp"],
    SamDefaults: ["Optimized", "Warp"],
    SourceMaps: ["Optimized", "Warp"],
    KeepAliveOff: ["Optimized", "Warp"],
    Unbundled: ["Optimized", "Warp"],
    OnNode14: ["Optimized", "Warp"],
  });
  // The terminal: Warp first under each function, then Optimized.
  expect(esbuild.run.stdout).toMatch(
    /^Clean \(nodejs22\.x\): .*\nWarp: [\d.]+ → [\d.]+ ms, [+-][\d.]+ ms \[[-\d.]+, [-\d.]+\]\nOptimized: [\d.]+ → [\d.]+ ms/m,
  );
});

it("a fix that does not build (a client this project does not install) costs only its own measurement, with SAM's reason", () => {
  const json = join(out, "fix-fails.json");
  const run = doctor("--template", `${FIXTURES}/fix-fails/template.yaml`, "--rounds", "1", "--profiles", "none", "--json", json);
  expect(outputOf(run)).toMatchObject({ status: 0 });
  const report = JSON.parse(readFileSync(json, "utf8")) as DoctorReport;
  expect(measuredIds(report)).toEqual({ RuntimeSdk: ["runtime-sdk"], RuntimeSdkNotInstalled: [] });
  expect(report.functions[1]!.findings[0]!.whyNotMeasured).toBe(
    'the build with the fix failed: Error: NodejsNpmEsbuildBuilder:EsbuildBundle - Esbuild Failed: ✘ [ERROR] Could not resolve "@aws-sdk/client-sso"',
  );
  expect(run.stderr).toContain("== the fixed copies did not build together: building each alone");
}, 120_000);

it("--fix on a read-only template: the diff, nothing written, exit 1", () => {
  const original = readFileSync(`${FIXTURES}/fix-me/template.yaml`, "utf8");
  const template = join(out, "fix-me", "template.yaml");
  mkdirSync(join(out, "fix-me", "src"), { recursive: true });
  cpSync(`${FIXTURES}/esbuild/src/plain.ts`, join(out, "fix-me", "src/plain.ts"));
  writeFileSync(template, original);
  chmodSync(template, 0o444);
  const run = doctor("--template", template, "--rounds", "1", "--profiles", "none", "--fix");
  expect(run.status).toBe(1);
  expect(run.stdout).toContain("+        Target: node22");
  expect(run.stderr).toContain(`error: ${template} is read-only (mode 0444): nothing written; the diff above is what --fix would change`);
  expect(readFileSync(template, "utf8")).toBe(original);
}, 180_000);
