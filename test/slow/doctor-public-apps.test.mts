// npm run doctor on public SAM apps nobody here wrote, each put back together as its owner
// publishes it (test/support/public-apps.mts) and built by its own `sam build` and package.json,
// npm reading only the project's cache: each function gets exactly the findings
// test/fixtures/public-functions/doctor-findings.json lists for it, the fixes a build makes are
// measured, its source is built in this template's profiles and measured, and what the lab ran
// otherwise than Lambda would is said.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { NODE22, PROJECT_ROOT, VENV_BIN } from "../../core/paths.mts";
import type { DoctorReport } from "../../doctor/findings.mts";
import { assemblePublicApp, OFFLINE_NPM_ENV } from "../support/public-apps.mts";

interface Expected {
  findings: string[];
  measured: string[];
  /** This template's profiles the function's source was built in and measured against it. */
  profiles: string[];
  labCaveat?: string;
}
const EXPECTED = JSON.parse(readFileSync(join(PROJECT_ROOT, "test/fixtures/public-functions/doctor-findings.json"), "utf8")) as Record<
  string,
  Record<string, Expected>
>;

// As `npm run doctor` runs it, with the project's tools first on PATH; npm offline.
const TOOLS_PATH = [dirname(NODE22), VENV_BIN, process.env.PATH].join(":");
const into = mkdtempSync(join(tmpdir(), "doctor-public-apps-"));
/** Each app's doctor run: its --json report and its progress (stderr). */
const runs: Record<string, { report: DoctorReport; stderr: string }> = {};

describe.each(Object.keys(EXPECTED))("%s", (app) => {
  let report: DoctorReport;
  let stderr: string;

  beforeAll(() => {
    const json = join(into, `${app}.json`);
    const run = spawnSync(NODE22, [join(PROJECT_ROOT, "doctor/cli.mts"), "--template", assemblePublicApp(app, into), "--rounds", "1", "--json", json], {
      cwd: PROJECT_ROOT,
      encoding: "utf8",
      timeout: 300_000,
      env: { ...process.env, ...OFFLINE_NPM_ENV, PATH: TOOLS_PATH, SAM_CLI_TELEMETRY: "0" },
    });
    expect({ status: run.status, output: run.stderr.slice(-3000) }).toMatchObject({ status: 0 });
    report = JSON.parse(readFileSync(json, "utf8")) as DoctorReport;
    stderr = run.stderr;
    runs[app] = { report, stderr };
  }, 300_000);

  it("each function has exactly the findings its data lists, and none is skipped", () => {
    const found = Object.fromEntries(report.functions.map((fn) => [fn.name, fn.findings.map((finding) => finding.id)]));
    expect(found).toEqual(Object.fromEntries(Object.entries(EXPECTED[app]!).map(([name, expected]) => [name, expected.findings])));
    expect(report.skipped).toEqual([]);
  });

  it("each fix a build makes is measured; every other finding says why not", () => {
    for (const fn of report.functions) {
      const measured = fn.findings.filter((finding) => finding.measured).map((finding) => finding.id);
      expect({ [fn.name]: measured }).toEqual({ [fn.name]: EXPECTED[app]![fn.name]!.measured });
      for (const finding of fn.findings) if (!finding.measured) expect(finding.whyNotMeasured).toEqual(expect.any(String));
    }
  });

  it("each function's source is built in this template's profiles and measured against it", () => {
    for (const fn of report.functions) {
      const measured = fn.profiles.filter((result) => result.measured).map((result) => result.profile);
      expect({ [fn.name]: measured, why: fn.profiles.map((result) => result.whyNotMeasured) }).toEqual({
        [fn.name]: EXPECTED[app]![fn.name]!.profiles,
        why: fn.profiles.map((result) => (measured.includes(result.profile) ? null : expect.any(String))),
      });
    }
  });

  it("each function is traced, or its first invoke failed on the event the doctor gave it; what the lab did otherwise is said", () => {
    for (const fn of report.functions) {
      const failedInvoke = fn.findings.some((finding) => finding.id === "invoke-error");
      expect({ [fn.name]: fn.whyNotTraced }).toEqual({ [fn.name]: failedInvoke ? "its first invoke failed" : null });
      expect({ [fn.name]: fn.labCaveat }).toEqual({ [fn.name]: EXPECTED[app]![fn.name]!.labCaveat ?? null });
    }
    expect(stderr).not.toContain("error:");
  });
});

// Run after the apps' own tests, which ran the doctor on them.
it("an app on nodejs14.x: the runtime first, and its v2 SDK's call to AWS is the lab's limit, said as such", () => {
  const [runtime, invoke] = runs["sam-nodejs14-s3"]!.report.functions[0]!.findings;
  expect(runtime).toMatchObject({
    id: "deprecated-runtime",
    severity: "error",
    message: expect.stringMatching(/^nodejs14\.x is deprecated since 2023-12-04 /),
  });
  expect(invoke!.message).toMatch(/given an event shaped for its S3 trigger S3NewObjectEvent \(sam local generate-event\), failed/);
  expect(invoke!.message).toContain("the v2 aws-sdk does not");
});

it("an esbuild app that installs no esbuild of its own is built with this project's, and the doctor says so", () => {
  expect(runs["sqs-lambda-ddb-sam-ts"]!.stderr).toContain(
    `== IngressProcessingFunction installs no esbuild of its own: SAM's esbuild builder runs this project's (${PROJECT_ROOT}/node_modules/.bin/esbuild)`,
  );
  // sam-hello-ts-pt lists esbuild in its package.json: SAM's npm install brings it.
  expect(runs["sam-hello-ts-pt"]!.stderr).not.toContain("no esbuild of");
});
