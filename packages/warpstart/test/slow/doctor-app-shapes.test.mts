// npm run doctor on each app of test/fixtures/app-shapes (SAM apps in the shapes of public ones:
// docs/public-apps.md), built by its own `sam build` where it is, with npm offline: each function
// gets exactly the findings test/fixtures/app-shapes/doctor-findings.json lists for it, the fixes
// a build makes are measured, its source is built in this template's profiles and measured, and
// what the lab ran otherwise than Lambda would is said.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { NODE22, PACKAGE_ROOT, VENV_BIN } from "../../core/paths.mts";
import type { DoctorReport } from "../../doctor/findings.mts";
import { DEMO_ROOT } from "../support/demo.mts";
import { WARPSTART } from "../support/warpstart.mts";

interface Expected {
  findings: string[];
  measured: string[];
  /** This template's profiles the function's source was built in and measured against it. */
  profiles: string[];
  labCaveat?: string;
  /** Why its cold start was not traced, where it is no finding of its own (an INIT that needs a published layer the lab cannot fetch): the start of the doctor's line. */
  whyNotTraced?: string;
}
const APPS = join(PACKAGE_ROOT, "test/fixtures/app-shapes");
const EXPECTED = JSON.parse(readFileSync(join(APPS, "doctor-findings.json"), "utf8")) as Record<string, Record<string, Expected>>;

/**
 * Apps examined from a copy outside the project. ride-ingest imports aws-lambda's types as values:
 * SAM's esbuild drops the import where no tsconfig.json says verbatimModuleSyntax, and in place the
 * project's says so (its corpus build fails on it, test/slow/corpus.test.mts). The copy sits beside
 * a link to the project's node_modules, where SAM's esbuild finds the SDK as the owner's npm install
 * would have put it.
 */
const COPIED = new Set(["ride-ingest"]);

const scratch = mkdtempSync(join(tmpdir(), "doctor-app-shapes-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * npm offline with an empty cache: `offline` answers every request from the cache or fails with
 * ENOTCACHED, and the proxy (a closed local port) makes any request that would still leave fail at
 * once. The apps install nothing (the runtime or the project's node_modules has what they import).
 */
const OFFLINE_NPM_ENV: Record<string, string> = {
  npm_config_cache: join(scratch, "npm-cache"),
  npm_config_offline: "true",
  npm_config_proxy: "http://127.0.0.1:9",
  npm_config_https_proxy: "http://127.0.0.1:9",
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
};
// As `npm run doctor` runs it, with the project's tools first on PATH.
const TOOLS_PATH = [dirname(NODE22), VENV_BIN, process.env.PATH].join(":");

/** The template the doctor examines: the app's own, or its copy's. */
function templateOf(app: string): string {
  if (!COPIED.has(app)) return join(APPS, app, "template.yaml");
  const copies = join(scratch, "copies");
  mkdirSync(copies, { recursive: true });
  if (!existsSync(join(copies, "node_modules"))) symlinkSync(join(DEMO_ROOT, "node_modules"), join(copies, "node_modules"));
  cpSync(join(APPS, app), join(copies, app), { recursive: true, filter: (from) => !from.includes("/.aws-sam") });
  return join(copies, app, "template.yaml");
}

/** Each app's doctor run: its --json report and its progress (stderr). */
const runs: Record<string, { report: DoctorReport; stderr: string }> = {};

it("the data names every app of test/fixtures/app-shapes", () => {
  const apps = readdirSync(APPS, { withFileTypes: true }).filter((entry) => entry.isDirectory() && existsSync(join(APPS, entry.name, "template.yaml")));
  expect(Object.keys(EXPECTED).sort()).toEqual(apps.map((entry) => entry.name).sort());
});

describe.each(Object.keys(EXPECTED))("%s", (app) => {
  let report: DoctorReport;
  let stderr: string;

  beforeAll(() => {
    const json = join(scratch, `${app}.json`);
    const run = spawnSync(NODE22, [WARPSTART, "doctor", "--template", templateOf(app), "--rounds", "1", "--json", json], {
      cwd: DEMO_ROOT,
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

  it("each function's source is built in this template's profiles and measured against it, or says why not", () => {
    for (const fn of report.functions) {
      const measured = fn.profiles.filter((result) => result.measured).map((result) => result.profile);
      expect({ [fn.name]: measured, why: fn.profiles.map((result) => result.whyNotMeasured) }).toEqual({
        [fn.name]: EXPECTED[app]![fn.name]!.profiles,
        why: fn.profiles.map((result) => (measured.includes(result.profile) ? null : expect.any(String))),
      });
    }
  });

  it("each function is traced, or its first invoke or its INIT failed; what the lab did otherwise is said", () => {
    for (const fn of report.functions) {
      const ids = fn.findings.map((finding) => finding.id);
      const expected = EXPECTED[app]![fn.name]!.whyNotTraced;
      const whyNotTraced = expected
        ? expect.stringContaining(expected)
        : ids.includes("init-error")
          ? "its INIT failed"
          : ids.includes("invoke-error")
            ? "its first invoke failed"
            : null;
      expect({ [fn.name]: fn.whyNotTraced }).toEqual({ [fn.name]: whyNotTraced });
      expect({ [fn.name]: fn.labCaveat }).toEqual({ [fn.name]: EXPECTED[app]![fn.name]!.labCaveat ?? null });
    }
    expect(stderr).not.toContain("error:");
  });
});

// Run after the apps' own tests, which ran the doctor on them.
it("an app on nodejs14.x: the runtime first, then its INIT on nodejs22.x, whose runtime has no v2 aws-sdk", () => {
  const [runtime, init] = runs["legacy-dock-sync"]!.report.functions[0]!.findings;
  expect(runtime).toMatchObject({
    id: "deprecated-runtime",
    severity: "error",
    message: expect.stringMatching(/^nodejs14\.x is deprecated since 2023-12-04 /),
  });
  // nodejs14.x's runtime ships the v2 SDK, which the app requires without installing it; the
  // runtimes the lab runs (and Lambda's since nodejs18.x) ship only the v3 one.
  expect(init).toMatchObject({ id: "init-error", message: expect.stringContaining("Runtime.ImportModuleError: Error: Cannot find module 'aws-sdk'") });
});

it("a call to an AWS host itself (one that no AWS_ENDPOINT_URL redirects, as the v2 aws-sdk's): the lab's limit, said as such", () => {
  const health = runs["legacy-dock-sync"]!.report.functions.find((fn) => fn.name === "DockHealthFunction")!;
  const invoke = health.findings.find((finding) => finding.id === "invoke-error")!;
  expect(invoke.message).toContain("the lab refused its connection to spokes-dock-health.s3.amazonaws.com:443");
  expect(invoke.message).toContain(
    "it serves its local AWS to clients that read AWS_ENDPOINT_URL, as the SDK v3 does and the v2 aws-sdk does not; on Lambda this call reaches AWS",
  );
});

it("an esbuild app that installs no esbuild of its own is built with warpstart's, and the doctor says so", () => {
  const esbuild = join(dirname(createRequire(import.meta.url).resolve("esbuild/package.json")), "bin/esbuild");
  expect(runs["ride-ingest"]!.stderr).toContain(`== RideIngestFunction installs no esbuild of its own: SAM's esbuild builder runs warpstart's (${esbuild})`);
  expect(runs["fleet-api"]!.stderr).toContain(
    `== registerBikeFunction, listBikesFunction, getBikeFunction, bikeEventsFunction install no esbuild of their own: SAM's esbuild builder runs warpstart's (${esbuild})`,
  );
  // station-board is built by SAM's npm builder, which runs no esbuild.
  expect(runs["station-board"]!.stderr).not.toContain("no esbuild of");
});

it("a function on nodejs18.x: its Warp row says the build is Optimized there, as the build itself says", () => {
  const [optimized, warp] = ["Optimized", "Warp"].map(
    (name) => runs["station-board"]!.report.functions[0]!.profiles.find((result) => result.profile === name)!,
  );
  expect(warp!.note).toMatch(
    /^Node 18 has no process\.getBuiltinModule, which the chunk's loader uses: built without the chunk and its code cache \(as Optimized/,
  );
  expect(optimized!.note).toBeNull();
});
