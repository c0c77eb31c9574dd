// The as-lambda app (test/fixtures/sam-apps/as-lambda) runs in the lab as on Lambda: the functions
// that take the SDK from the runtime, use a callback, a layer of the app, an S3 or a stream event, or
// seeded data answer; IsolationUndeclaredImport's build fails, IsolationInitThrows's provisioned
// environment fails its INIT, and `npm run bench` and `npm run invoke` measure and run the others
// all the same. One file, as each command builds the app in its own .aws-sam. The
// doctor and `npm run lab` on it: test/slow/as-lambda.test.mts; the lab's side through its
// Lambda API: test/integration/lambda-api.test.mts.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readBenchResults } from "../../bench/results.mts";
import { NODE22 } from "../../core/paths.mts";
import { BUILD_ERROR, PROVISION_FAILS, TEMPLATE, TOOLS_ENV } from "../support/as-lambda.mts";
import { bench } from "../support/bench.mts";
import { DEMO_ROOT } from "../support/demo.mts";
import { outputOf } from "../support/doctor.mts";
import { WARPSTART } from "../support/warpstart.mts";

const out = mkdtempSync(join(tmpdir(), "warpstart-isolation-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

it("npm run bench: the function whose build fails is reported not built, the one whose INIT fails measured as failed rounds, the other measured", () => {
  const run = bench("--template", TEMPLATE, "--rounds", "1", "--out", out);
  expect(outputOf(run)).toMatchObject({ status: 0 });
  expect(run.stderr).toContain(`== IsolationUndeclaredImport is left out: its build fails: ${BUILD_ERROR}`);
  expect(run.stderr).toContain(PROVISION_FAILS);
  const results = readBenchResults(readFileSync(join(out, "results.json"), "utf8"));
  expect(results.notBuilt).toEqual([{ function: "IsolationUndeclaredImport", profile: "Optimized", message: expect.stringContaining(BUILD_ERROR) }]);
  expect(
    results.cells.map((cell) => [cell.function, cell.samples.length, cell.failures.map(({ phase, errorType, message }) => [phase, errorType, message])]),
  ).toEqual([
    ["IsolationHealthy", 1, []],
    ["IsolationInitThrows", 0, [["cold", "Runtime.InitError", "Error: UPLOADS_BUCKET is not set"]]],
    ["WorldOnUpload", 1, []],
    ["WorldOnOrder", 1, []],
    ["WorldReadsSeeds", 1, []],
    ["TrustRuntimeSdk", 1, []],
    ["TrustCallback", 1, []],
    ["TrustLayered", 1, []],
    ["TrustStreaming", 1, []],
  ]);
}, 240_000);

it("npm run invoke of the function whose provisioned INIT fails: its INIT error, on demand", () => {
  const invoke = spawnSync(NODE22, [WARPSTART, "invoke", "--template", TEMPLATE, "IsolationInitThrows"], {
    cwd: DEMO_ROOT,
    encoding: "utf8",
    timeout: 120_000,
    env: TOOLS_ENV,
  });
  expect(invoke.status).toBe(1);
  expect(JSON.parse(invoke.stdout)).toMatchObject({ errorType: "Runtime.InitError", errorMessage: "Error: UPLOADS_BUCKET is not set" });
  expect(invoke.stderr).toMatch(/^INIT_REPORT Init Duration: [\d.]+ ms\tPhase: init\tStatus: error\tError Type: Runtime.InitError$/m);
}, 120_000);

it.each([
  ["TrustRuntimeSdk", { cause: "runtime-sdk", calledSts: true }],
  ["TrustCallback", { cause: "callback", waits: false }],
  ["TrustLayered", { cause: "layer", greeting: "hello from the layer, lab", calledSts: true }],
  ["TrustStreaming", { cause: "streaming", calledSts: true }],
])(
  "npm run invoke %s: it answers as on Lambda",
  (name, answer) => {
    const invoke = spawnSync(NODE22, [WARPSTART, "invoke", "--template", TEMPLATE, name], {
      cwd: DEMO_ROOT,
      encoding: "utf8",
      timeout: 120_000,
      env: TOOLS_ENV,
    });
    expect([invoke.status, invoke.stderr.split("\n").filter((line) => /error/i.test(line))]).toEqual([0, []]);
    expect(JSON.parse(invoke.stdout)).toEqual(answer);
  },
  120_000,
);
