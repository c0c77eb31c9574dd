// The doctor, `npm run lab` and `npm run load` on the as-lambda app (test/fixtures/sam-apps/as-lambda),
// each building it: IsolationUndeclaredImport's build fails and is reported with its build's error
// line, IsolationInitThrows's provisioned environment fails its INIT, and the others are built,
// examined, served and loaded all the same. The bench and `npm run invoke` on it: test/integration/as-lambda.test.mts.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import type { RunSummary } from "../../cli/load.mts";
import { NODE22 } from "../../core/paths.mts";
import type { DoctorReport } from "../../doctor/findings.mts";
import { BUILD_ERROR, PROVISION_FAILS, TEMPLATE, TOOLS_ENV } from "../support/as-lambda.mts";
import { DEMO_ROOT } from "../support/demo.mts";
import { doctor, findingIds, outputOf } from "../support/doctor.mts";
import { WARPSTART } from "../support/warpstart.mts";

const out = mkdtempSync(join(tmpdir(), "warpstart-isolation-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

it("npm run doctor: the function whose build fails is skipped with its build's error line, the others built, traced, examined, and Warp measured for each that can run", () => {
  const json = join(out, "doctor.json");
  const run = doctor("--template", TEMPLATE, "--rounds", "1", "--json", json);
  expect(outputOf(run)).toMatchObject({ status: 0 });
  const report = JSON.parse(readFileSync(json, "utf8")) as DoctorReport;
  expect(report.skipped).toEqual([
    { name: "IsolationUndeclaredImport", runtime: "nodejs22.x", why: expect.stringContaining(`its build fails: ${BUILD_ERROR}`) },
  ]);
  expect(run.stdout).toContain(`skipped IsolationUndeclaredImport (nodejs22.x): its build fails: ${BUILD_ERROR}`);
  expect(findingIds(report)).toMatchObject({ IsolationHealthy: [], IsolationInitThrows: ["init-error"], TrustRuntimeSdk: ["runtime-sdk"], TrustLayered: [] });
  // Every function whose INIT completes in the lab gets its Warp build measured; one whose INIT fails so built too, why, with the runtime's error.
  const warp = (fn: DoctorReport["functions"][number]) => fn.profiles.find((result) => result.profile === "Warp");
  expect(report.functions.map((fn) => [fn.name, warp(fn)?.measured ? "measured" : warp(fn)?.whyNotMeasured])).toEqual([
    ["IsolationHealthy", "measured"],
    ["IsolationInitThrows", "no round measured both: Runtime.InitError: Error: UPLOADS_BUCKET is not set"],
    ["WorldOnUpload", "measured"],
    ["WorldOnOrder", "measured"],
    ["WorldReadsSeeds", "measured"],
    ["TrustRuntimeSdk", "measured"],
    ["TrustCallback", "measured"],
    ["TrustLayered", expect.stringContaining("it is built with the Warp profile already")],
    ["TrustStreaming", expect.stringContaining("it is built with the Warp profile already")],
  ]);
  expect(report.functions.find((fn) => fn.name === "IsolationHealthy")!.init).not.toBeNull();
  expect(run.stderr).toContain(`== ${PROVISION_FAILS}`);
}, 300_000);

it("npm run doctor on an app in which every function's build fails: SAM's own error, as for one function", () => {
  const run = doctor("--template", join(dirname(TEMPLATE), "isolation-every-build-fails.yaml"), "--static");
  expect(run.status).toBe(1);
  expect(run.stderr).toContain("== sam build failed: building its 2 functions one by one to find the ones that fail");
  expect(run.stderr).toContain(
    `error: sam build of the app in ${dirname(TEMPLATE)} failed, so there is nothing to examine: sam build --template-file isolation-every-build-fails.yaml failed (exit 1):`,
  );
  expect(run.stdout).toBe("");
}, 120_000);

describe("npm run lab: it starts, says what it does not serve and whose provisioned concurrency failed, and serves the others", () => {
  let lab: ChildProcess;
  /** What it printed on stdout, line by line. */
  const lines: string[] = [];
  beforeAll(async () => {
    lab = spawn(NODE22, [WARPSTART, "lab", "--template", TEMPLATE, "--quiet"], { cwd: DEMO_ROOT, env: TOOLS_ENV, stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve, reject) => {
      lab.once("exit", (code) => reject(new Error(`npm run lab exited (${code}) before it served:\n${lines.join("\n")}`)));
      createInterface({ input: lab.stdout! }).on("line", (line) => {
        lines.push(line);
        if (line === "Ctrl-C stops everything.") resolve();
      });
    });
  }, 180_000);
  afterAll(async () => {
    if (lab.exitCode !== null || lab.signalCode !== null) return;
    const ended = new Promise((resolve) => lab.once("exit", resolve));
    lab.kill("SIGTERM");
    await ended;
  });
  const apiUrl = () => lines.find((line) => line.startsWith("HTTP API:"))!.split(/\s+/)[2]!;

  it("says so, one line each", () => {
    expect(lines.filter((line) => line.startsWith("Not served: "))).toEqual([
      expect.stringContaining(`Not served: IsolationUndeclaredImport: its build fails: ${BUILD_ERROR}`),
    ]);
    expect(lines).toContain(PROVISION_FAILS);
  });

  it("serves the healthy function's alias from its provisioned environment, the failed one's on demand with its INIT error", async () => {
    const healthy = await fetch(`${apiUrl()}/isolation/healthy`);
    expect(await healthy.json()).toEqual({ initializationType: "provisioned-concurrency" });
    expect((await fetch(`${apiUrl()}/isolation/init-throws`)).status).toBe(500);
  });
});

it("npm run load: the function whose build fails is left out with its route, the one whose INIT fails answers with errors, the other loaded", () => {
  const dir = join(out, "load");
  const run = spawnSync(NODE22, [WARPSTART, "load", "--template", TEMPLATE, "--duration", "3", "--provisioned", "1", "--max-p99", "off", "--out", dir], {
    cwd: DEMO_ROOT,
    encoding: "utf8",
    timeout: 240_000,
    env: TOOLS_ENV,
  });
  // IsolationInitThrows answers its requests with API Gateway's 500, which Artillery's no-failed-request check does not count.
  expect(outputOf(run)).toMatchObject({ status: 0 });
  expect(run.stderr).toContain(`== IsolationUndeclaredImport is left out: its build fails: ${BUILD_ERROR}`);
  expect(run.stderr).toContain(PROVISION_FAILS);
  const { runs } = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8")) as { runs: RunSummary[] };
  for (const { functions } of runs) {
    expect(Object.keys(functions).sort()).toEqual(["IsolationHealthy", "IsolationInitThrows"]);
    expect(functions.IsolationHealthy).toMatchObject({ errors: 0, initializationTypes: { "provisioned-concurrency": expect.any(Number) } });
    expect(functions.IsolationInitThrows!.errors).toBe(functions.IsolationInitThrows!.requests);
  }
}, 300_000);
