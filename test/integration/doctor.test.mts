// npm run doctor on real builds: the fixture SAM apps of test/fixtures/sam-apps/doctor/, each built
// once by the doctor's own `sam build` (the project's makefile pipeline; SAM's esbuild and npm
// builders), give each function exactly the findings it is named after, and Clean none; the
// project's template (built by globalSetup): Raw's SDK from the runtime, Warp clean. Bad input:
// one line saying what is wrong, and the exit code. --json's shape, --markdown, --fail-on.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { NODE22, PROJECT_ROOT, VENV_BIN } from "../../core/paths.mts";
import type { DoctorReport } from "../../doctor/findings.mts";

const FIXTURES = "test/fixtures/sam-apps/doctor";
const MAKEFILE_APP = `${FIXTURES}/makefile/template.yaml`;
const ESBUILD_APP = `${FIXTURES}/esbuild/template.yaml`;
// As `npm run doctor` runs it (scripts/with-tools.sh): the project's Node, SAM CLI and esbuild first on PATH.
const TOOLS_PATH = [dirname(NODE22), VENV_BIN, join(PROJECT_ROOT, "node_modules/.bin"), process.env.PATH].join(":");

/** `npm run doctor -- <args>` in the project's folder, as npm runs it. */
const doctor = (...args: string[]) =>
  spawnSync(NODE22, [join(PROJECT_ROOT, "doctor/cli.mts"), ...args], {
    cwd: PROJECT_ROOT,
    encoding: "utf8",
    timeout: 300_000,
    env: { ...process.env, PATH: TOOLS_PATH, SAM_CLI_TELEMETRY: "0" },
  });
const outputOf = (run: ReturnType<typeof doctor>) => ({ status: run.status, output: `${run.stdout}\n${run.stderr}`.slice(-4000) });
const findingIds = (report: DoctorReport) => Object.fromEntries(report.functions.map((fn) => [fn.name, fn.findings.map((found) => found.id)]));

const out = mkdtempSync(join(tmpdir(), "doctor-"));
/** Each fixture app, built and examined once: the run, and its --json report. */
const examined: Record<string, { run: ReturnType<typeof doctor>; report: DoctorReport }> = {};

beforeAll(() => {
  for (const [name, template] of [
    ["makefile", MAKEFILE_APP],
    ["esbuild", ESBUILD_APP],
  ]) {
    const json = join(out, `${name}.json`);
    const run = doctor("--template", template!, "--json", json, "--markdown", join(out, `${name}.md`));
    expect(outputOf(run)).toMatchObject({ status: 0 });
    examined[name!] = { run, report: JSON.parse(readFileSync(json, "utf8")) as DoctorReport };
  }
}, 600_000);

it("the project's makefile pipeline: each function has exactly the finding it is named after, Clean none", () => {
  expect(findingIds(examined.makefile!.report)).toEqual({
    Clean: [],
    RuntimeSdk: ["runtime-sdk"],
    CredentialProviders: ["credential-providers"],
    CommonJs: ["commonjs"],
    EnvironmentVariables: ["environment-variables"],
    SourceMaps: ["environment-variables", "source-maps"],
    KeepAliveOff: ["keep-alive-off"],
    CodeCacheMismatch: ["code-cache-mismatch"],
  });
});

it("SAM's esbuild builder (and its npm builder, Unbundled): each function has exactly the findings it is named after, Clean none", () => {
  expect(findingIds(examined.esbuild!.report)).toEqual({
    Clean: [],
    RuntimeSdk: ["runtime-sdk"],
    CredentialProviders: ["credential-providers"],
    CommonJs: ["commonjs"],
    EsbuildTarget: ["esbuild-target"],
    SamDefaults: ["commonjs", "esbuild-target"],
    SourceMaps: ["environment-variables", "source-maps"],
    KeepAliveOff: ["keep-alive-off"],
    Unbundled: ["runtime-sdk"],
  });
});

it("--json: each function's name, runtime, findings (problems only, nothing measured yet) and passed checks", () => {
  const { report } = examined.makefile!;
  expect(report.skipped).toEqual([]);
  const runtimeSdk = report.functions.find((fn) => fn.name === "RuntimeSdk")!;
  expect(runtimeSdk).toEqual({
    name: "RuntimeSdk",
    runtime: "nodejs22.x",
    findings: [
      {
        id: "runtime-sdk",
        severity: "error",
        message: "imports @aws-sdk/client-sts unbundled: INIT resolves and loads the SDK file by file from the runtime's own copy (or a layer's)",
        fix: "bundle the SDK: esbuild without @aws-sdk/* in External (this project's Optimized or Warp profile) (README.md#runtime-sdk)",
        measured: null,
      },
    ],
    passed: ["credential-providers", "commonjs", "environment-variables", "source-maps", "esbuild-target", "keep-alive-off", "code-cache-mismatch"],
    bundle: { bytes: expect.any(Number), largestInputs: [{ path: `${FIXTURES}/makefile/src/functions/sts/index.mts`, bytes: expect.any(Number) }] },
  });
  const codeCache = report.functions.find((fn) => fn.name === "CodeCacheMismatch")!;
  expect(codeCache.runtime).toBe("nodejs24.x");
  expect(codeCache.findings[0]!.message).toBe("its code cache was made by nodejs22.x's Node and it runs on nodejs24.x, whose V8 rejects it");
});

it("what each finding found names the place: the variables, the line that turns keep-alive off, the providers bundled", () => {
  const messages = Object.fromEntries(examined.esbuild!.report.functions.map((fn) => [fn.name, fn.findings.map((found) => found.message)]));
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

it("the terminal's report: a table per function, the fix and its README section, and that nothing is measured yet", () => {
  const { run } = examined.makefile!;
  expect(run.stdout).toMatch(/^CommonJs \(nodejs22\.x\): 1 finding, 7 checks passed; INIT loads [\d.]+ KiB$/m);
  expect(run.stdout).toMatch(/^commonjs +warn +not measured +build an ES module .* \(README\.md#commonjs\)$/m);
  expect(run.stdout).toContain("Measured Δ: not measured yet (the doctor's measuring step is not built)");
  expect(run.stderr).toContain("== sam build in test/fixtures/sam-apps/doctor/makefile");
  expect(run.stderr).toContain("== examining CodeCacheMismatch (8/8)");
  expect(readFileSync(join(out, "makefile.md"), "utf8")).toContain("| commonjs | warn | not measured | build an ES module");
});

it("the project's template: Raw takes the SDK from the runtime, Warp has no findings", () => {
  const json = join(out, "project.json");
  const run = doctor("--no-build", "--json", json);
  expect(outputOf(run)).toMatchObject({ status: 0 });
  const ids = findingIds(JSON.parse(readFileSync(json, "utf8")) as DoctorReport);
  expect(ids.Raw).toEqual(["runtime-sdk"]);
  expect(ids.Warp).toEqual([]);
  // And what the others were built to show.
  expect(ids).toMatchObject({ Bundled: ["credential-providers"], Optimized: [], Floor: [], Cjs: ["commonjs"], NoKeepAlive: ["keep-alive-off"], Hello: [] });
});

describe("--fail-on", () => {
  it.each([
    [["--fail-on", "error"], 1], // RuntimeSdk and CodeCacheMismatch are errors
    [["--fail-on", "warn", "Clean", "EnvironmentVariables"], 0], // an environment variable is info
    [["--fail-on", "warn", "CommonJs"], 1],
    [["--fail-on", "error", "CommonJs"], 0],
    [[], 0],
  ])("%j exits %d", (args, status) => {
    expect(outputOf(doctor("--template", MAKEFILE_APP, "--no-build", ...args))).toMatchObject({ status });
  });
});

describe("bad input: one line saying what is wrong", () => {
  it.each([
    [["--template", "package.json"], 1, `error: ${PROJECT_ROOT}/package.json is not a SAM template: it has no Resources section`],
    [["--template", "nowhere/template.yaml"], 1, `error: cannot read the template ${PROJECT_ROOT}/nowhere/template.yaml: ENOENT: no such file or directory`],
    [
      ["--template", `${FIXTURES}/no-node/template.yaml`],
      1,
      `error: ${FIXTURES}/no-node/template.yaml has no Node.js function to examine (Report: python3.13 is not Node.js: the doctor examines nodejs20.x, nodejs22.x, nodejs24.x and this project's deno and bun runtimes)`,
    ],
    [
      ["--template", `${FIXTURES}/build-fails/template.yaml`, "--no-build"],
      1,
      `error: --no-build: ${FIXTURES}/build-fails/template.yaml has not been built yet (no .aws-sam/build/template.yaml)`,
    ],
    [["Raw", "Nope"], 2, "error: Nope is not a function of template.yaml; its functions: Raw, Bundled, Optimized, Warp, Floor, Cjs, NoKeepAlive, Hello"],
    [["--fail-on", "info"], 2, 'error: --fail-on must be warn or error, not "info"'],
  ])("%j exits %d: %s", (args, status, message) => {
    const run = doctor(...args);
    expect(run.status).toBe(status);
    expect(run.stderr.split("\n")[0]).toContain(message);
    if (status === 2) expect(run.stderr).toContain("usage: npm run doctor");
    else expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).not.toContain("== sam build");
    expect(run.stdout).toBe("");
  });

  it("a build that fails: SAM's own error, shown", () => {
    const run = doctor("--template", `${FIXTURES}/build-fails/template.yaml`);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("error: the build failed, so there is nothing to examine: sam build --template-file template.yaml failed (exit 1):");
    expect(run.stderr).toContain('build of Broken failed: Broken: Unknown build profile "Fast"');
    expect(run.stdout).toBe("");
  }, 120_000);
});
