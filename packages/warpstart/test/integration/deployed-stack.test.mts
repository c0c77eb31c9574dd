// The commands that read a deployed stack, end to end with the real SDK clients over HTTP, against
// the stand-in AWS (test/support/stand-in-aws.mts): `npm run bench -- --stack` (stack outputs, forced
// cold starts through UpdateFunctionConfiguration and the SDK's waiter, Init Duration from the log
// tail), `npm run load -- --stack` on a stack without an ApiUrl, a stack with provisioned concurrency
// (on the alias, which the bench does not invoke), and the errors AWS gives, as a user sees them.
// Artillery against a stack's ApiUrl: test/slow/load.test.mts.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchResults, readBenchResults } from "../../bench/results.mts";
import { NODE22 } from "../../core/paths.mts";
import { fixFor } from "../../doctor/checks.mts";
import { DEMO_ROOT } from "../support/demo.mts";
import { DOCTOR_FIXTURES } from "../support/doctor.mts";
import { functionNameOutputs, type StandInAws, startStandInAws } from "../support/stand-in-aws.mts";
import { WARPSTART } from "../support/warpstart.mts";

const out = mkdtempSync(join(tmpdir(), "warpstart-stack-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Every key and the type of every value, the first element standing for an array's: what two results.json must share. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, 1).map(shapeOf);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, shapeOf((value as Record<string, unknown>)[key])]),
    );
  return typeof value;
}

/** The bench's printed tables without their numbers (and without the report's path): titles, headers, rows' names. */
const tablesOf = (stdout: string) =>
  stdout
    .split("\n")
    .filter((line) => !line.startsWith("Report: "))
    .map((line) =>
      line
        .replace(/-?[\d.]+/g, "N")
        .replace(/-+/g, "-")
        .replace(/\s+/g, " "),
    );

describe("the stand-in AWS, its stacks naming the lab's Warp and Hello", () => {
  let standIn: StandInAws;
  beforeAll(async () => {
    standIn = await startStandInAws({ only: ["Warp", "Hello"] });
    await standIn.createStack("warpstart", {
      Runtime: "node22",
      ApiUrl: standIn.lab.apiUrl,
      ...functionNameOutputs(["Warp", "Hello"]),
      FloorFunctionName: "warpstart-Floor-gone",
    });
    // A SAM app's stack as a user deploys it: no outputs, its function a resource of the same logical id.
    await standIn.createStack("sam-app", {}, { SourceMaps: "Hello" });
  });
  afterAll(() => standIn?.stop());

  it("npm run bench -- --stack measures the stack's functions and prints and writes what the local bench does", async () => {
    const [cloud, local] = [join(out, "cloud"), join(out, "local")];
    const run = await standIn.run("bench", ["--stack", "warpstart", "--functions", "Warp,Hello", "--rounds", "2", "--out", cloud]);
    expect({ status: run.status, stderr: run.stderr }).toMatchObject({ status: 0, stderr: expect.not.stringContaining("error") });
    const results = readBenchResults(readFileSync(join(cloud, "results.json"), "utf8"));
    expect(results).toMatchObject({ target: { kind: "aws", stacks: ["warpstart"], region: "us-east-1" }, runtimes: ["node22"], rounds: 2 });
    expect(results.cells.map((cell) => [cell.name, cell.functionName, cell.samples.length, cell.failures])).toEqual([
      ["Warp", "Warp", 2, []],
      ["Hello", "Hello", 2, []],
    ]);
    // What the functions said of themselves; none of this machine's tools, which did not run them.
    expect(results.versions).toMatchObject({ "node22 reports": `node ${process.versions.node}`, "V8 code cache (Warp)": "accepted" });
    expect(results.versions).not.toHaveProperty("esbuild");

    const localRun = spawnSync(NODE22, [WARPSTART, "bench", "--no-build", "--functions", "Warp,Hello", "--rounds", "2", "--out", local], {
      cwd: DEMO_ROOT,
      encoding: "utf8",
      env: { ...process.env, CI: "true" },
    });
    expect(localRun.status).toBe(0);
    const localResults: BenchResults = JSON.parse(readFileSync(join(local, "results.json"), "utf8"));
    const shared = ({ target: _target, versions: _versions, ...rest }: BenchResults) => shapeOf(rest);
    expect(shared(results)).toEqual(shared(localResults));
    expect(tablesOf(run.stdout)).toEqual(tablesOf(localRun.stdout));
    expect(readFileSync(join(cloud, "report.md"), "utf8")).toMatch(/^\| Warp \| 2 \|/m);
  });

  it("reads a function the outputs do not name from the stack's resources: the doctor's `npx warpstart bench --stack`, on a user's app", async () => {
    // What the doctor tells the owner of a function with environment variables to run.
    expect(fixFor("environment-variables", { fn: {}, pipeline: null } as never)).toEqual({ why: expect.stringContaining("npx warpstart bench --stack") });
    const dir = join(out, "sam-app");
    const template = join(DOCTOR_FIXTURES, "esbuild/template.yaml");
    const run = await standIn.run("bench", ["--template", template, "--stack", "sam-app", "--functions", "SourceMaps", "--rounds", "1", "--out", dir]);
    expect({ status: run.status, stderr: run.stderr }).toMatchObject({ status: 0, stderr: expect.not.stringContaining("error") });
    const results = readBenchResults(readFileSync(join(dir, "results.json"), "utf8"));
    expect(results.cells.map((cell) => [cell.name, cell.functionName, cell.samples.length])).toEqual([["SourceMaps", "Hello", 1]]);
  });

  it("a stack that does not exist: CloudFormation's ValidationError, with the stack and its region", async () => {
    const run = await standIn.run("bench", ["--stack", "nope", "--functions", "Warp"]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("error: cannot describe the stack nope in us-east-1: Stack with id nope does not exist");
  });

  it("a function the stack does not have: named, before anything is measured", async () => {
    const run = await standIn.run("bench", ["--stack", "warpstart", "--functions", "Optimized"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("error: Optimized is not in the stack warpstart (no OptimizedFunctionName output, no AWS::Lambda::Function Optimized)");
  });

  it("a function the stack names and Lambda does not have: its rounds fail with Lambda's ResourceNotFoundException, the others are measured", async () => {
    const dir = join(out, "gone");
    const run = await standIn.run("bench", ["--stack", "warpstart", "--functions", "Floor,Hello", "--rounds", "1", "--out", dir]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      /^Floor +update +1 +ResourceNotFoundException ×1: Function not found: arn:aws:lambda:us-east-1:123456789012:function:warpstart-Floor-gone$/m,
    );
    const results = readBenchResults(readFileSync(join(dir, "results.json"), "utf8"));
    expect(results.cells.map((cell) => [cell.name, cell.samples.length])).toEqual([
      ["Floor", 0],
      ["Hello", 1],
    ]);
  });

  it("npm run load -- --stack on a stack without an ApiUrl output says so", async () => {
    const run = await standIn.run("load", ["--stack", "sam-app", "--out", join(out, "no-api")]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("error: stack sam-app has no ApiUrl output: deploy this project's template (sam deploy) or name a stack that has one");
  });
});

describe("the stand-in AWS, its stack deployed with ProvisionedConcurrency=1 (on each function's live alias, as SAM attaches it)", () => {
  let standIn: StandInAws;
  beforeAll(async () => {
    standIn = await startStandInAws({ only: ["Hello"], parameterOverrides: { ProvisionedConcurrency: "1" } });
    await standIn.createStack("warpstart", { ApiUrl: standIn.lab.apiUrl, ...functionNameOutputs(["Hello"]) });
  });
  afterAll(() => standIn?.stop());

  it("npm run bench -- --stack still gets a cold start every round: it invokes $LATEST, the alias keeps its provisioned environment", async () => {
    expect(standIn.lab.lambda.environments("Hello:live")).toMatchObject({ provisioned: 1 });
    const dir = join(out, "provisioned-bench");
    const run = await standIn.run("bench", ["--stack", "warpstart", "--functions", "Hello", "--rounds", "2", "--out", dir]);
    expect({ status: run.status, stderr: run.stderr }).toMatchObject({ status: 0, stderr: expect.not.stringContaining("error") });
    const [hello] = readBenchResults(readFileSync(join(dir, "results.json"), "utf8")).cells;
    expect(hello!.failures).toEqual([]);
    expect(hello!.samples.map((sample) => sample.initMs > 0)).toEqual([true, true]);
    expect(standIn.lab.lambda.environments("Hello:live")).toMatchObject({ provisioned: 1 });
  });
});

describe("the stand-in AWS with a Lambda concurrency limit of 0", () => {
  let standIn: StandInAws;
  beforeAll(async () => {
    standIn = await startStandInAws({ only: ["Hello"], concurrencyLimit: 0 });
    await standIn.createStack("warpstart", functionNameOutputs(["Hello"]));
  });
  afterAll(() => standIn?.stop());

  it("every invoke is throttled: the rounds fail with Lambda's TooManyRequestsException (after the SDK's retries), and the bench exits 1", async () => {
    const run = await standIn.run("bench", ["--stack", "warpstart", "--functions", "Hello", "--rounds", "1", "--out", join(out, "throttled")]);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/^Hello +cold +1 +TooManyRequestsException ×1: Rate Exceeded\. \(the lab's concurrency limit is 0\)$/m);
  });
});
