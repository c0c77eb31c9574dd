// npm run doctor's options and what a user sees of bad input: --static, --fail-on, --fix (the
// measured fixes written into a copy of an app's template), the project's template (built by
// globalSetup: Raw's SDK from the runtime, Warp clean), and one line saying what is wrong, with the
// exit code. The doctor on a whole app: test/integration/doctor.test.mts.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DoctorReport } from "../../doctor/findings.mts";
import { DEMO_ROOT } from "../support/demo.mts";
import { doctor, doctorWith, DOCTOR_FIXTURES as FIXTURES, findingIds, outputOf } from "../support/doctor.mts";
import { FUNCTION_NAMES } from "../support/lab.mts";

const MAKEFILE_APP = `${FIXTURES}/makefile/template.yaml`;
const out = mkdtempSync(join(tmpdir(), "warpstart-doctor-options-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

it("--static: the static checks only, no lab", () => {
  const run = doctor("--template", MAKEFILE_APP, "--no-build", "--static", "CommonJs");
  expect(outputOf(run)).toMatchObject({ status: 0 });
  expect(run.stdout).toMatch(/^commonjs +warn +not measured +build an ES module/m);
  expect(run.stdout).toContain("INIT not traced: the doctor ran its static checks only (--static)");
  expect(run.stdout).toContain("Measured Δ: nothing ran in the lab (--static, or no function on a runtime the lab runs).");
  expect(run.stderr).not.toContain("== starting the lab");
});

it("the project's template: Raw takes the SDK from the runtime, Warp has no findings", () => {
  const json = join(out, "project.json");
  const run = doctor("--no-build", "--rounds", "1", "--profiles", "none", "--json", json);
  expect(outputOf(run)).toMatchObject({ status: 0 });
  const report = JSON.parse(readFileSync(json, "utf8")) as DoctorReport;
  const ids = findingIds(report);
  expect(ids.Raw).toEqual(["runtime-sdk"]);
  expect(ids.Warp).toEqual([]);
  // Warp's traced cold start: its one INIT call, none of the builtins to load only when needed.
  const warp = report.functions.find((fn) => fn.name === "Warp")!;
  expect(warp.init).toMatchObject({ heavyBuiltins: [], awsCalls: [{ service: "sts", operation: "GetCallerIdentity" }] });
  // A CommonJS source built as an ES module fails at INIT: not measured, and the runtime's error says why.
  const cjs = report.functions.find((fn) => fn.name === "Cjs")!.findings[0]!;
  expect(cjs.whyNotMeasured).toMatch(/^no round measured both: Runtime.InitError: ReferenceError: __filename is not defined in ES module scope/);
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
    expect(outputOf(doctor("--template", MAKEFILE_APP, "--no-build", "--static", ...args))).toMatchObject({ status });
  });
});

describe("--fix: the fixes measured, written into the template in place", () => {
  const ADDED = ["+        Format: esm", "+        OutExtension:", "+          - .js=.mjs", "+        Target: node22"];
  const original = readFileSync(`${FIXTURES}/fix-me/template.yaml`, "utf8");
  /** A copy of the fix-me app to change: its template, and its handler. */
  const template = join(out, "fix-me", "template.yaml");
  beforeAll(() => {
    mkdirSync(join(out, "fix-me", "src"), { recursive: true });
    cpSync(`${FIXTURES}/esbuild/src/plain.ts`, join(out, "fix-me", "src/plain.ts"));
    writeFileSync(template, original);
  });
  const addedLines = (stdout: string) => stdout.split("\n").filter((line) => /^[+-] /.test(line) || /^[+-] {2,}/.test(line));

  it("--dry-run prints the diff of its build properties and writes nothing; a peer asked for is measured, never a fix", () => {
    const run = doctor("--template", template, "--rounds", "1", "--profiles", "SamEsbuild", "--fix", "--dry-run");
    expect(outputOf(run)).toMatchObject({ status: 0 });
    expect(run.stdout).toMatch(/^SamEsbuild: [\d.]+ → [\d.]+ ms, [+-][\d.]+ ms/m);
    expect(run.stdout).toMatch(/^--fix would apply 2 fixes to .*template\.yaml: Plain: commonjs, Plain: esbuild-target$/m);
    expect(addedLines(run.stdout)).toEqual(ADDED);
    expect(readFileSync(template, "utf8")).toBe(original);
  }, 180_000);

  it("writes them, the rest of the template (comments, order, flow lists) as it was: built again, the function has neither finding", () => {
    expect(outputOf(doctor("--template", template, "--rounds", "1", "--profiles", "none", "--fix"))).toMatchObject({ status: 0 });
    const lines = original.trimEnd().split("\n");
    expect(readFileSync(template, "utf8")).toBe(`${[...lines, ...ADDED.map((line) => line.slice(1))].join("\n")}\n`);
    const again = doctor("--template", template, "--static");
    expect(again.stdout).toContain("Plain (nodejs22.x): no findings");
  }, 180_000);

  it.each([
    [["--dry-run"], "error: --dry-run goes with --fix: it prints the diff --fix would write"],
    [["--fix", "--static"], "error: --fix writes the fixes the doctor built and measured: leave out --static"],
  ])("%j: a usage error", (args, message) => {
    const run = doctor(...args);
    expect(run.status).toBe(2);
    expect(run.stderr.split("\n")[0]).toBe(message);
  });
});

describe("bad input: one line saying what is wrong", () => {
  it.each([
    [["--template", "package.json"], 1, `error: ${DEMO_ROOT}/package.json is not a SAM template: it has no Resources section`],
    [["--template", "nowhere/template.yaml"], 1, `error: cannot read the template ${DEMO_ROOT}/nowhere/template.yaml: ENOENT: no such file or directory`],
    [
      ["--template", `${FIXTURES}/no-node/template.yaml`],
      1,
      `error: ${FIXTURES}/no-node/template.yaml has no Node.js function to examine (Report: python3.13 is not Node.js: the doctor examines Lambda's Node.js runtimes (nodejs24.x back to nodejs) and this project's deno and bun runtimes)`,
    ],
    [
      ["--template", `${FIXTURES}/build-fails/template.yaml`, "--no-build"],
      1,
      `error: --no-build: ${FIXTURES}/build-fails/template.yaml has not been built yet (no .aws-sam/build/template.yaml)`,
    ],
    [["Raw", "Nope"], 2, `error: Nope is not a function of template.yaml; its functions: ${FUNCTION_NAMES.join(", ")}`],
    [["--fail-on", "info"], 2, 'error: --fail-on must be warn or error, not "info"'],
    [["--rounds", "0"], 2, 'error: --rounds must be a whole number from 1 to 1000, not "0"'],
    [["--static", "--rounds", "3"], 2, "error: --static measures nothing: leave out --rounds"],
    [
      ["--profiles", "Fast,Warp"],
      2,
      'error: --profiles takes Raw, Bundled, Optimized, Warp, SamEsbuild, NodeCompileCache, RuntimeSdk (comma-separated) or none, not "Fast"',
    ],
    [["--static", "--profiles", "Warp"], 2, "error: --static builds and measures nothing: leave out --profiles"],
  ])("%j exits %d: %s", (args, status, message) => {
    const run = doctor(...args);
    expect(run.status).toBe(status);
    expect(run.stderr.split("\n")[0]).toContain(message);
    if (status === 2) expect(run.stderr).toContain("usage: warpstart doctor");
    else expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).not.toContain("== sam build");
    expect(run.stdout).toBe("");
  });

  it("a build that fails: SAM's own error, shown", () => {
    const run = doctor("--template", `${FIXTURES}/build-fails/template.yaml`);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      `error: sam build of the app in ${FIXTURES}/build-fails failed, so there is nothing to examine: sam build --template-file template.yaml failed (exit 1):`,
    );
    expect(run.stderr).toContain('build of Broken failed: Broken: Unknown build profile "Fast"');
    expect(run.stdout).toBe("");
  }, 120_000);

  it("an app whose own npm install fails: SAM's error, the app named", () => {
    // npm offline, with an empty cache: the registry is never asked.
    const env = { npm_config_offline: "true", npm_config_cache: mkdtempSync(join(out, "npm-cache-")) };
    const run = doctorWith(env)("--template", `${FIXTURES}/npm-fails/template.yaml`, "--static");
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`error: sam build of the app in ${FIXTURES}/npm-fails failed, so there is nothing to examine: `);
    expect(run.stderr).toContain("Error: NodejsNpmBuilder:NpmInstall - NPM Failed: npm error code ENOTCACHED");
    expect(run.stderr).toContain("warpstart-fixture-no-such-package");
    expect(run.stdout).toBe("");
  }, 120_000);

  it("a function whose CodeUri is not there is skipped, saying so; the others are examined", () => {
    const json = join(out, "missing-code.json");
    const run = doctor("--template", `${FIXTURES}/missing-code/template.yaml`, "--static", "--json", json);
    expect(outputOf(run)).toMatchObject({ status: 0 });
    const report = JSON.parse(readFileSync(json, "utf8")) as DoctorReport;
    expect(report.functions.map((fn) => fn.name)).toEqual(["Present"]);
    expect(report.skipped).toEqual([
      {
        name: "Missing",
        runtime: "nodejs22.x",
        why: `its CodeUri src/nowhere does not exist in ${DEMO_ROOT}/${FIXTURES}/missing-code: the doctor builds code on disk (an S3 CodeUri or a missing folder cannot be built)`,
      },
    ]);
    expect(run.stdout).toContain("skipped Missing (nodejs22.x): its CodeUri src/nowhere does not exist");
  }, 120_000);
});
