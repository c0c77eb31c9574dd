// `npm run doctor` as the doctor's tests run it (test/integration/doctor*.test.mts, test/slow/doctor-builders.test.mts):
// spawned in the project's folder with the project's tools first on PATH, as npm runs it, and what
// its reports say, read for the assertions.
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { NODE22, PACKAGE_ROOT, VENV_BIN } from "../../core/paths.mts";
import type { DoctorReport } from "../../doctor/findings.mts";
import { DEMO_ROOT } from "./demo.mts";
import { WARPSTART } from "./warpstart.mts";

/** The doctor's fixture apps, relative to the folder the tests run in (the repository's root), as a user names an app. */
export const DOCTOR_FIXTURES = relative(DEMO_ROOT, join(PACKAGE_ROOT, "test/fixtures/sam-apps/doctor"));
// As `npm run doctor` runs it (scripts/with-tools.sh): the project's Node, SAM CLI and esbuild first on PATH.
const TOOLS_PATH = [dirname(NODE22), VENV_BIN, join(DEMO_ROOT, "node_modules/.bin"), process.env.PATH].join(":");

export type DoctorRun = SpawnSyncReturns<string>;

/** `npm run doctor -- <args>` in the project's folder, as npm runs it (with `env` added). */
export const doctorWith =
  (env: Record<string, string>) =>
  (...args: string[]): DoctorRun =>
    spawnSync(NODE22, [WARPSTART, "doctor", ...args], {
      cwd: DEMO_ROOT,
      encoding: "utf8",
      timeout: 300_000,
      env: { ...process.env, PATH: TOOLS_PATH, SAM_CLI_TELEMETRY: "0", ...env },
    });
export const doctor = doctorWith({});

/** A run's exit status and the end of its output, for an assertion that shows both when it fails. */
export const outputOf = (run: DoctorRun) => ({ status: run.status, output: `${run.stdout}\n${run.stderr}`.slice(-4000) });

/** Enough to pair rounds; what the fixes buy is the bench's business, not a test's. */
export const ROUNDS = 2;

/** A fixture app, built and examined once by a whole doctor run (`--rounds ROUNDS`, `--profiles profiles`): the run, and its --json report. */
export function examineApp(template: string, profiles: string, out: string, { build = true } = {}): { run: DoctorRun; report: DoctorReport } {
  const json = join(out, "report.json");
  const run = doctor(
    "--template",
    template,
    ...(build ? [] : ["--no-build"]),
    "--rounds",
    String(ROUNDS),
    "--profiles",
    profiles,
    "--json",
    json,
    "--markdown",
    join(out, "report.md"),
  );
  expect(outputOf(run)).toMatchObject({ status: 0 });
  return { run, report: JSON.parse(readFileSync(json, "utf8")) as DoctorReport };
}

/** Each function's findings, by id. */
export const findingIds = (report: DoctorReport) => Object.fromEntries(report.functions.map((fn) => [fn.name, fn.findings.map((found) => found.id)]));

/** Each function's measured findings, by id. */
export const measuredIds = (report: DoctorReport) =>
  Object.fromEntries(report.functions.map((fn) => [fn.name, fn.findings.filter((found) => found.measured).map((found) => found.id)]));

/** What the function's finding `id` says of why it was not measured. */
export const whyNotMeasured = (report: DoctorReport, fn: string, id: string) =>
  report.functions.find((found) => found.name === fn)!.findings.find((found) => found.id === id)!.whyNotMeasured;

/** Each function's profile builds: the profile when measured, else the profile and why not. */
export const profilesOf = (report: DoctorReport) =>
  Object.fromEntries(
    report.functions.map((fn) => [fn.name, fn.profiles.map((result) => (result.measured ? result.profile : `${result.profile}: ${result.whyNotMeasured}`))]),
  );
