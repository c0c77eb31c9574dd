// The README's user path, driven on a temporary copy of the project as a new user would: a handler
// written for a client the project installs, a function and the resource its INIT reads added to
// template.yaml, then the real `sam build`, `npm run invoke` and `npm run bench --profiles`. And
// what a user sees when one of those steps goes wrong; and code written inline in a template.
// (Step 1, npm install of a client: test/slow/npm-install.test.mts.)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { BenchResults } from "../../bench/results.mts";
import { NODE22, PACKAGE_ROOT, VENV_BIN } from "../../core/paths.mts";
import { DEMO_ROOT } from "../support/demo.mts";
import { FUNCTION_NAMES } from "../support/lab.mts";
import { copyProject } from "../support/project-copy.mts";
import { WARPSTART } from "../support/warpstart.mts";

const TOOLS_PATH = `${dirname(NODE22)}:${VENV_BIN}:${process.env.PATH}`;
/** Runs a command in `cwd` with the project's tools first on PATH, as `npm run` does. */
const runIn = (cwd: string, command: string, args: string[], timeout = 300_000) =>
  spawnSync(command, args, { cwd, encoding: "utf8", timeout, env: { ...process.env, PATH: TOOLS_PATH, SAM_CLI_TELEMETRY: "0", CI: "true" } });
/** A failed run's output, for the assertion message. */
const outputOf = (run: ReturnType<typeof runIn>) => ({ status: run.status, output: `${run.stdout ?? ""}\n${run.stderr ?? ""}`.slice(-4000) });

const HANDLER = `// A user's function: checks its bucket during INIT, lists it on every invoke.
import { HeadBucketCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";


declare const BUCKET: string;

const s3 = new S3Client({});
await s3.send(new HeadBucketCommand({ Bucket: BUCKET }));

export const handler = async () => {
  const { KeyCount } = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }));
  return { bucket: BUCKET, keyCount: KeyCount ?? 0 };
};
`;

const FUNCTION = `
  Uploads:
    Type: AWS::S3::Bucket
    Properties:
      BucketName: warpstart-test-uploads
  Thumbnails:
    Type: AWS::Serverless::Function
    Metadata:
      BuildMethod: makefile
      BuildProperties:
        Profile: Warp
        Define: { BUCKET: !Ref Uploads }
    Properties:
      Handler: src/functions/thumbnails/index.handler
      Policies:
        - S3ReadPolicy: { BucketName: !Ref Uploads }
`;

describe("your function, any AWS service: the README's path on a copy of the project", () => {
  let copy: string;
  beforeAll(() => {
    // The client it uses is installed already (the npm install of step 1: test/slow/npm-install.test.mts).
    copy = copyProject("linked");
  });
  afterAll(() => {
    if (copy) rmSync(copy, { recursive: true, force: true });
  });

  it("2-4. a handler and a template entry, then sam build: Warp's chunk holds the new client, its cache made against the bucket", () => {
    mkdirSync(join(copy, "src/functions/thumbnails"), { recursive: true });
    writeFileSync(join(copy, "src/functions/thumbnails/index.mts"), HANDLER);
    writeFileSync(join(copy, "template.yaml"), readFileSync(join(copy, "template.yaml"), "utf8").replace(/\nOutputs:/, `${FUNCTION}\nOutputs:`));
    expect(outputOf(runIn(copy, join(VENV_BIN, "sam"), ["validate", "--lint"]))).toMatchObject({ status: 0 });
    // The demo's functions, unchanged, are the project's builds, kept by their inputs (builder/build-cache.mts).
    const build = runIn(copy, join(VENV_BIN, "sam"), ["build"]);
    expect(outputOf(build)).toMatchObject({ status: 0 });
    expect(build.stdout + build.stderr).toMatch(
      /built Thumbnails \(Warp\): .*index\.mjs .*V8 code cache [\d.]+ KiB \((arm64( and x86_64)?: each accepted on a test INIT|x86_64: accepted on a test INIT; arm64: accepted on an earlier build's, of the same Node and flags)\)/,
    );
    const artifact = join(copy, ".aws-sam/build/Thumbnails/src/functions/thumbnails");
    expect(readFileSync(join(artifact, "sdk.cjs"), "utf8")).toContain('"@aws-sdk/client-s3"');
    expect(existsSync(join(artifact, "sdk.arm64.cache"))).toBe(true); // the template deploys arm64
  }, 300_000);

  it("5. npm run invoke: one cold invoke in the lab, the log on stderr and the result on stdout", () => {
    const invoke = runIn(copy, NODE22, [join(copy, "node_modules/.bin/warpstart"), "invoke", "Thumbnails"]);
    expect(outputOf(invoke)).toMatchObject({ status: 0 });
    expect(JSON.parse(invoke.stdout)).toEqual({ bucket: "warpstart-test-uploads", keyCount: 0 });
    expect(invoke.stderr).toMatch(/^INIT_START /m);
    expect(invoke.stderr).toMatch(/^REPORT RequestId: \S+\tDuration: [\d.]+ ms\t.*\tInit Duration: [\d.]+ ms/m);
  }, 120_000);

  it("6. npm run bench --profiles: the function in each profile, side by side in one run", () => {
    const out = join(copy, "results/profiles");
    const bench = runIn(copy, NODE22, [
      join(copy, "node_modules/.bin/warpstart"),
      "bench",
      "--no-build",
      "--variants",
      "Thumbnails",
      "--profiles",
      "Bundled,Optimized,Warp",
      "--rounds",
      "2",
      "--out",
      out,
    ]);
    expect(outputOf(bench)).toMatchObject({ status: 0 });
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as BenchResults;
    expect(results.cells.map((cell) => [cell.function, cell.profile, cell.samples.length, cell.failures])).toEqual(
      ["Bundled", "Optimized", "Warp"].map((profile) => ["Thumbnails", profile, 2, []]),
    );
    expect(results.versions["V8 code cache (Thumbnails/Warp)"]).toBe("accepted");
    for (const file of ["report.md", "chart.svg"]) expect(existsSync(join(out, file))).toBe(true);
  }, 300_000);
});

describe("what a user sees when a step goes wrong", () => {
  const APP = join(PACKAGE_ROOT, "test/fixtures/sam-apps/bad-inputs");
  /** `sam build <function>` of the bad-inputs app: its exit status and the build's own error line. */
  const samBuild = (logicalId: string) => {
    const run = runIn(APP, join(VENV_BIN, "sam"), ["build", logicalId, "--build-in-source"]);
    return { status: run.status, output: `${run.stdout}\n${run.stderr}` };
  };

  it.each([
    ["UnknownProfile", 'build of UnknownProfile failed: UnknownProfile: Unknown build profile "Fast". Profiles: Raw, Bundled, Optimized, Warp'],
    [
      "MissingSource",
      "build of MissingSource failed: MissingSource: its Handler src/functions/nowhere/index.handler names the source src/functions/nowhere/index.{mts,ts,mjs,js,cts,cjs}",
    ],
    [
      "ImportsMissing",
      "build of ImportsMissing failed: ImportsMissing: test/fixtures/sam-apps/bad-inputs/src/functions/imports-missing/index.mts imports @aws-sdk/client-kinesis, which is not installed: npm install @aws-sdk/client-kinesis",
    ],
    [
      "DefinesUnnamed",
      "build of DefinesUnnamed failed: DefinesUnnamed: Define NAME: !Ref Unnamed has no name before deploy time: give it one (Name) so the build can embed it",
    ],
  ])("sam build %s fails, saying what is wrong and what to do", (logicalId, message) => {
    const { status, output } = samBuild(logicalId);
    expect(status).not.toBe(0);
    expect(output).toContain(message);
  });

  it("sam build of a Warp function that loads no package at INIT nor on its event builds it as Optimized, saying why", () => {
    const { status, output } = samBuild("ImportsAfterInit");
    expect(status).toBe(0);
    expect(output).toContain(
      "ImportsAfterInit: Warp could not make its code cache, so it is built as Optimized: Warp cannot build ImportsAfterInit's V8 code cache: neither its INIT nor an invoke with its event loads any of the packages it imports",
    );
  }, 120_000);

  it("a Warp build whose INIT reads what the template does not declare keeps the cache until then, naming the call, the service and what to declare", () => {
    const { status, output } = samBuild("WarpReadsUndeclared");
    expect(status).toBe(0);
    expect(output).toContain(
      "WarpReadsUndeclared: its code cache holds what INIT compiled until it failed: Warp builds WarpReadsUndeclared's V8 code cache by running its INIT, against a local AWS that holds only",
    );
    expect(output).toContain("The call that failed: ssm GetParameter answered 400 ParameterNotFound");
    expect(output).toContain(
      "Declare what INIT reads in the template (an AWS::SSM::Parameter, with the name the function uses), or build WarpReadsUndeclared with another profile.",
    );
    expect(output).not.toMatch(/amazonaws\.com/);
  }, 120_000);

  it("npm run invoke in an app whose package.json npm install wrote without a name: SAM's error, and what to do", () => {
    const app = mkdtempSync(join(tmpdir(), "warpstart-unnamed-"));
    try {
      // What npm install --save-dev writes in a folder without a package.json.
      writeFileSync(join(app, "package.json"), JSON.stringify({ devDependencies: {} }));
      writeFileSync(join(app, "index.mjs"), "export const handler = async () => 1;\n");
      writeFileSync(
        join(app, "template.yaml"),
        "Transform: AWS::Serverless-2016-10-31\nResources:\n  Plain:\n    Type: AWS::Serverless::Function\n    Properties: { Runtime: nodejs22.x, Handler: index.handler, CodeUri: . }\n",
      );
      const invoke = runIn(app, NODE22, [WARPSTART, "invoke", "Plain"]);
      expect(invoke.status).toBe(1);
      expect(invoke.stderr).toContain("Invalid package, must have name and version");
      expect(invoke.stderr).toContain(
        "A package.json SAM's npm builder packs has no name or version (npm install --save-dev warpstart writes one so in an app that had none): npx warpstart adopt gives it both, or run npm pkg set name=my-app version=1.0.0 there.",
      );
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  }, 120_000);

  it("npm run invoke of a function without CodeUri after sam build of another: builds it, not runs the build folder as its code", () => {
    const app = mkdtempSync(join(tmpdir(), "warpstart-no-codeuri-"));
    try {
      writeFileSync(join(app, "package.json"), JSON.stringify({ name: "no-codeuri", version: "1.0.0" }));
      writeFileSync(join(app, "first.mjs"), "export const handler = async () => 'first';\n");
      writeFileSync(join(app, "second.mjs"), "export const handler = async () => 'second';\n");
      const fn = (handler: string) => `    Type: AWS::Serverless::Function\n    Properties: { Runtime: nodejs22.x, Handler: ${handler}.handler }\n`;
      writeFileSync(join(app, "template.yaml"), `Transform: AWS::Serverless-2016-10-31\nResources:\n  First:\n${fn("first")}  Second:\n${fn("second")}`);
      // SAM's built template then lists Second without a CodeUri: the build folder itself.
      expect(runIn(app, join(VENV_BIN, "sam"), ["build", "First"]).status).toBe(0);
      const invoke = runIn(app, NODE22, [WARPSTART, "invoke", "Second"]);
      expect(invoke.stderr).toContain("== sam build Second (it has not been built)");
      expect({ status: invoke.status, stdout: invoke.stdout.trim() }).toEqual({ status: 0, stdout: '"second"' });
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  }, 180_000);

  it("npm run invoke of a function whose INIT reads what the template does not declare: Lambda's init error with the SDK's, and the call named", () => {
    const invoke = runIn(DEMO_ROOT, NODE22, [WARPSTART, "invoke", "--template", join(APP, "template.yaml"), "ReadsUndeclared"]);
    expect(invoke.status).toBe(1);
    expect(JSON.parse(invoke.stdout)).toMatchObject({ errorType: "Runtime.InitError", errorMessage: expect.stringMatching(/^ParameterNotFound: /) });
    expect(invoke.stderr).toMatch(/^INIT_REPORT Init Duration: [\d.]+ ms\tPhase: init\tStatus: error\tError Type: Runtime.InitError$/m);
    expect(invoke.stderr).toContain("[warpstart lab] INIT's call ssm GetParameter answered 400 ParameterNotFound");
  }, 180_000);

  it.each([
    [["NoSuchFunction"], `error: NoSuchFunction is not a function of template.yaml; its functions: ${FUNCTION_NAMES.join(", ")}`],
    [["Optimized", "--event", join(DEMO_ROOT, "README.md")], `error: --event ${join(DEMO_ROOT, "README.md")} is not JSON: Unexpected token`],
    [["Optimized", "--event", "/nonexistent.json"], "error: --event /nonexistent.json: ENOENT: no such file or directory"],
    [["Optimized", "--profile", "Fast"], 'error: --profile: Unknown build profile "Fast"'],
    [[], "error: which function? Give its logical id"],
  ])("npm run invoke %j says so and exits 2 before starting anything", (args, message) => {
    const invoke = runIn(DEMO_ROOT, NODE22, [WARPSTART, "invoke", ...args], 30_000);
    expect(invoke.status).toBe(2);
    expect(invoke.stderr).toContain(message);
    expect(invoke.stderr).toContain("usage: warpstart invoke");
    expect(invoke.stderr).not.toContain("starting the local AWS");
  });
});

it("npm run invoke of a function whose code is inline, with nothing built: run as Lambda deploys it, without a sam build (SAM's own fails on it)", () => {
  const invoke = runIn(
    DEMO_ROOT,
    NODE22,
    [WARPSTART, "invoke", "--template", join(PACKAGE_ROOT, "test/fixtures/sam-apps/sam-shapes/template.yaml"), "Inline"],
    60_000,
  );
  expect(invoke.status).toBe(0);
  // A custom resource's provider: its Create request, answered through the cfn-response module Lambda gives inline code.
  expect(invoke.stderr).toMatch(/^== Inline's response to CloudFormation \(the PUT to its ResponseURL\): \{"Status":"SUCCESS"/m);
  expect(invoke.stderr).not.toContain("sam build");
}, 60_000);
