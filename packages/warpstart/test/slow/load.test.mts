// `npm run load` end to end, short and bounded: a real Artillery run against the lab's HTTP API,
// with provisioned concurrency off and on, and against a deployed stack's ApiUrl (the stand-in AWS,
// test/support/stand-in-aws.mts), with provisioned concurrency on the alias the API invokes. No
// timing assertions: the p99 threshold is turned off (on 2 shared cores the opening spike's p99
// varies with the machine's load), the no-failed-request condition stays.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunSummary } from "../../cli/load.mts";
import { NODE22 } from "../../core/paths.mts";
import { readTemplate } from "../../core/template.mts";
import { DEMO_ROOT } from "../support/demo.mts";
import { functionNameOutputs, type StandInAws, startStandInAws } from "../support/stand-in-aws.mts";
import { WARPSTART } from "../support/warpstart.mts";

it("drives every function with zero errors, counts cold starts, and provisioned environments serve with PC on", () => {
  const out = mkdtempSync(join(tmpdir(), "warpstart-load-"));
  try {
    const run = spawnSync(NODE22, [WARPSTART, "load", "--no-build", "--duration", "6", "--provisioned", "1", "--max-p99", "off", "--out", out], {
      cwd: DEMO_ROOT,
      encoding: "utf8",
      timeout: 240_000,
    });
    // the end of its output in the failure message, to see why
    expect({ status: run.status, end: `${run.stdout.slice(-3000)}\n${run.stderr.slice(-2000)}` }).toMatchObject({ status: 0 });
    const { runs } = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as { runs: RunSummary[] };
    expect(runs.map((r) => r.provisionedConcurrency)).toEqual([0, 1]);
    // A scenario per GET route: a function a user added without one is not loaded.
    const functions = readTemplate(join(DEMO_ROOT, "template.yaml"))
      .functions.filter((fn) => fn.httpPath)
      .map((fn) => fn.logicalId)
      .sort();
    for (const r of runs) {
      expect(r.checks).toEqual([{ expression: "vusers.failed == 0", passed: true }]);
      expect(r.thresholdsPassed).toBe(true);
      expect(Object.keys(r.functions).sort()).toEqual(functions);
      for (const v of Object.values(r.functions)) {
        expect(v.errors).toBe(0);
        expect(v.requests).toBeGreaterThan(0);
        expect(v.coldStarts).toBeGreaterThanOrEqual(1);
      }
    }
    for (const v of Object.values(runs[0]!.functions)) expect(Object.keys(v.initializationTypes)).toEqual(["on-demand"]);
    for (const v of Object.values(runs[1]!.functions)) expect(v.initializationTypes["provisioned-concurrency"]).toBeGreaterThan(0);
    expect(run.stdout).toContain("provisioned concurrency: 1   thresholds: passed");
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

const out = mkdtempSync(join(tmpdir(), "warpstart-load-stack-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/**
 * `npm run load -- --stack warpstart` for 3 s, no p99 threshold, its scenarios from a template
 * whose one route is Hello's (the one the stand-in serves): it passes, and its summary's runs.
 */
async function loadHello(standIn: StandInAws, name: string): Promise<RunSummary[]> {
  const [template, dir] = [join(out, "hello.yaml"), join(out, name)];
  writeFileSync(
    template,
    "Transform: AWS::Serverless-2016-10-31\nResources:\n  Hello:\n    Type: AWS::Serverless::Function\n    Properties:\n      Runtime: nodejs22.x\n      Handler: index.handler\n      CodeUri: .\n      Events: { Get: { Type: HttpApi, Properties: { Method: GET, Path: /hello } } }\n",
  );
  const run = await standIn.run("load", ["--stack", "warpstart", "--template", template, "--duration", "3", "--max-p99", "off", "--out", dir]);
  expect({ status: run.status, end: run.stderr.slice(-2000) }).toMatchObject({ status: 0 });
  return (JSON.parse(readFileSync(join(dir, "summary.json"), "utf8")) as { runs: RunSummary[] }).runs;
}

describe("npm run load -- --stack, against the stand-in AWS whose stack names the lab's Hello", () => {
  let standIn: StandInAws;
  beforeAll(async () => {
    standIn = await startStandInAws({ only: ["Hello"] });
    await standIn.createStack("warpstart", { ApiUrl: standIn.lab.apiUrl, ...functionNameOutputs(["Hello"]) });
  });
  afterAll(() => standIn?.stop());

  it("npm run load -- --stack runs Artillery against the stack's ApiUrl", async () => {
    const runs = await loadHello(standIn, "load");
    expect(runs).toEqual([expect.objectContaining({ provisionedConcurrency: "as deployed", target: standIn.lab.apiUrl, thresholdsPassed: true })]);
    expect(runs[0]!.functions.Hello).toMatchObject({ errors: 0, coldStarts: expect.any(Number) });
    expect(runs[0]!.functions.Hello!.requests).toBeGreaterThan(0);
  });
});

describe("npm run load -- --stack, the stack deployed with ProvisionedConcurrency=1 (on Hello's live alias, as SAM attaches it)", () => {
  let standIn: StandInAws;
  beforeAll(async () => {
    standIn = await startStandInAws({ only: ["Hello"], parameterOverrides: { ProvisionedConcurrency: "1" } });
    await standIn.createStack("warpstart", { ApiUrl: standIn.lab.apiUrl, ...functionNameOutputs(["Hello"]) });
  });
  afterAll(() => standIn?.stop());

  it("npm run load -- --stack reaches the provisioned environment: the stack's API invokes the alias", async () => {
    const runs = await loadHello(standIn, "provisioned-load");
    expect(runs[0]!.functions.Hello).toMatchObject({
      errors: 0,
      initializationTypes: expect.objectContaining({ "provisioned-concurrency": expect.any(Number) }),
    });
  });
});
