// `npm run bench` end to end against the local lab (the build from globalSetup): two rounds of
// every function, then the files a user opens; --profiles, what a user sees when the
// command line is wrong or hyperfine fails, and hyperfine where the machine has none. No timing is asserted: only that it measured. The runtime
// matrix (--runtimes node22,node24,deno,bun): test/slow/runtime-matrix.test.mts; --ablate:
// test/slow/bench-ablate.test.mts.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchResults, readBenchResults } from "../../bench/results.mts";
import { LAMBDA_FIDELITY } from "../../lab/fidelity.mts";
import { AS_BUILT } from "../../measure/cold-starts.mts";
import { bench, benchWith } from "../support/bench.mts";
import { DEMO_ROOT, EXAMPLES_TEMPLATE } from "../support/demo.mts";
import { FUNCTION_NAMES, installedSdk, profileOf } from "../support/lab.mts";

describe("npm run bench -- --rounds 2", () => {
  const out = mkdtempSync(join(tmpdir(), "warpstart-bench-"));
  let run: ReturnType<typeof bench>;
  let results: BenchResults;
  beforeAll(() => {
    run = bench("--no-build", "--rounds", "2", "--out", out);
    // As written: schema 6, with cells.
    results = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("exits 0 and says where the report is", () => {
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`Report: ${join(out, "report.md")}`);
    expect(run.stdout).toMatch(/^test\s+# of samples\s+p0\s+p50\s+p90\s+p95\s+p99\s+p100$/m);
  });

  it("writes every cell's raw samples, paired by round, with versions and machine", () => {
    expect(results).toMatchObject({ schema: 6, rounds: 2, target: { kind: "local", fidelity: LAMBDA_FIDELITY }, runtimes: ["node22"] });
    expect(results.cells.map((cell) => [cell.name, cell.function, cell.profile])).toEqual(FUNCTION_NAMES.map((name) => [name, name, profileOf(name)]));
    expect(results.cells.every((cell) => cell.runtime === "node22")).toBe(true);
    // The template's FloorOf: only the Floor names a function it is the Floor of.
    expect(results.cells.filter((cell) => cell.floorOf !== undefined).map((cell) => [cell.name, cell.floorOf])).toEqual([["Floor", "Warp"]]);
    for (const cell of results.cells) {
      expect(cell.failures).toEqual([]);
      expect(cell.samples.map((sample) => sample.round)).toEqual([0, 1]);
      expect(cell.initMs).toHaveLength(2);
      expect(cell.e2eMs).toHaveLength(2);
      for (const sample of cell.samples) {
        expect(sample.initMs).toBeGreaterThan(0);
        expect(sample.e2eMs).toBeGreaterThan(0);
        expect(sample.warmE2eMs).toBeGreaterThan(0);
      }
    }
    const sts = installedSdk();
    expect(results.versions).toMatchObject({
      "runtime node22": process.versions.node,
      "node22 reports": `node ${process.versions.node}`,
      "@aws-sdk/client-sts": sts,
      "sdk (Optimized)": sts,
    });
    expect(results.versions["aws-lambda-ric (nodejs22.x)"]).toMatch(/^\d+\.\d+\.\d+$/);
    expect(results.versions["@aws-sdk/* (nodejs22.x's copy, Raw)"]).toMatch(/^\d+\.\d+\.\d+$/);
    expect(results.versions.esbuild).toMatch(/^\d+\.\d+\.\d+$/);
    expect(results.machine.cpuCount).toBeGreaterThan(0);
  });

  it("writes a Markdown report with the seed's tables and the ratios", () => {
    const report = readFileSync(join(out, "report.md"), "utf8");
    expect(report).toContain("| test | # of samples | p0 | p50 | p90 | p95 | p99 | p100 |");
    for (const name of FUNCTION_NAMES) expect(report).toMatch(new RegExp(`^\\| ${name} \\| 2 \\|`, "m"));
    expect(report).toMatch(/vs Raw/);
    expect(report).toMatch(/vs Optimized/);
    expect(report).toContain("\n## Init Duration: each function vs its Floor\n");
    expect(report).toContain("chart.svg");
  });

  it("draws one box per cell in the SVG chart", () => {
    const svg = readFileSync(join(out, "chart.svg"), "utf8");
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    expect(svg.match(/<rect [^>]*class="box"/g)).toHaveLength(FUNCTION_NAMES.length);
  });
});

describe("bench usage errors", () => {
  it.each([
    [["--rounds", "0"], '--rounds must be a whole number from 1, not "0"'],
    [["--functions", "Raw,Turbo"], `Turbo is not a function of template.yaml; its functions: ${FUNCTION_NAMES.join(", ")}`],
    // --variants, --functions' old name, still works.
    [["--variants", "Raw,Turbo"], `Turbo is not a function of template.yaml; its functions: ${FUNCTION_NAMES.join(", ")}`],
    [["--functions", "Raw", "--variants", "Raw"], "--variants is --functions' old name: give one of them"],
    [["--profiles", "Bundled,Fast"], '--profiles: Unknown build profile "Fast". Profiles: Raw, Bundled, Optimized, Warp'],
    [["--profiles", "Bundled", "--stack", "warpstart"], "--profiles, --ablate and --exec-wrapper build locally; a --stack runs each function as deployed"],
    [["--exec-wrapper", "--stack", "warpstart"], "--profiles, --ablate and --exec-wrapper build locally; a --stack runs each function as deployed"],
    [
      ["--runtimes", "node22,quickjs"],
      '--runtimes: Unknown runtime "quickjs". Known runtimes: node18, node20, node22, node24, deno, bun, bun-no-cache (without its startup cache)',
    ],
    [
      ["--runtimes", "./bin/llrt"],
      `--runtimes: llrt is not installed: ${join(DEMO_ROOT, "bin/llrt")} is missing; give the path of an installed runtime's binary`,
    ],
    [["--runtimes", "deno", "--stack", "warpstart"], "with --stack, the runtimes are the stacks' own"],
  ])("%j says %s and exits 2", (args, message) => {
    const run = bench(...args);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`error: ${message}`);
    expect(run.stderr).toContain("usage: warpstart bench");
  });
});

describe("npm run bench -- --runtimes on a machine without hyperfine", () => {
  it("times the process starts with the setup part's hyperfine, installed first if it is not yet", () => {
    const out = mkdtempSync(join(tmpdir(), "warpstart-own-hyperfine-"));
    try {
      // With --variants, --functions' old name.
      const run = benchWith({ PATH: "/nonexistent" }, "--no-build", "--rounds", "1", "--runtimes", "node22", "--variants", "Floor", "--out", out);
      expect(run.status).toBe(0);
      const results = readBenchResults(readFileSync(join(out, "results.json"), "utf8"));
      expect(results.versions.hyperfine).toMatch(/^hyperfine \d/);
      expect(results.processStart?.results.map((row) => row.label)).toEqual(["Empty", "Floor"]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

describe("npm run bench -- --runtimes when hyperfine fails", () => {
  it("still writes the cold starts it measured, and exits 1 with hyperfine's error", () => {
    const dir = mkdtempSync(join(tmpdir(), "warpstart-broken-hyperfine-"));
    try {
      // Answers --version, fails every measurement.
      writeFileSync(
        join(dir, "hyperfine"),
        '#!/bin/sh\n[ "$1" = --version ] && { echo "hyperfine 0.0.0"; exit 0; }\necho "hyperfine: simulated failure" >&2\nexit 3\n',
        { mode: 0o755 },
      );
      const out = join(dir, "out");
      const run = benchWith(
        { PATH: `${dir}:${process.env.PATH}` },
        "--no-build",
        "--rounds",
        "1",
        "--runtimes",
        "node22",
        "--functions",
        "Floor",
        "--out",
        out,
      );
      expect(run.status).toBe(1);
      expect(run.stderr).toContain("error: the process-start comparison failed");
      expect(run.stderr).toContain("hyperfine: simulated failure");
      const results = readBenchResults(readFileSync(join(out, "results.json"), "utf8"));
      expect(results.cells.map((cell) => [cell.name, cell.runtime, cell.samples.length])).toEqual([["Floor", "node22", 1]]);
      expect(results.processStart).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("npm run bench -- --template examples/template.yaml --functions SsmParameter --profiles Bundled,Optimized,Warp --rounds 1", () => {
  it("builds the function in each profile and measures them side by side, each entry naming function and profile", () => {
    const out = mkdtempSync(join(tmpdir(), "warpstart-profiles-"));
    try {
      const run = bench(
        "--no-build",
        "--template",
        EXAMPLES_TEMPLATE,
        "--functions",
        "SsmParameter",
        "--profiles",
        "Bundled,Optimized,Warp",
        "--rounds",
        "1",
        "--out",
        out,
      );
      expect(run.stderr).not.toMatch(/^error:/m);
      expect(run.status).toBe(0);
      const results = readBenchResults(readFileSync(join(out, "results.json"), "utf8"));
      expect(results.cells.map((cell) => [cell.name, cell.function, cell.profile, cell.samples.length, cell.failures.length])).toEqual([
        ["SsmParameter/Bundled", "SsmParameter", "Bundled", 1, 0],
        ["SsmParameter/Optimized", "SsmParameter", "Optimized", 1, 0],
        ["SsmParameter/Warp", "SsmParameter", "Warp", 1, 0],
      ]);
      expect(results.versions["V8 code cache (SsmParameter/Warp)"]).toBe("accepted");
      expect(run.stdout).toContain("Init Duration vs Bundled");
      expect(run.stdout).toMatch(/^SsmParameter\/Warp\s+1\s/m);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

describe("npm run bench on an app SAM's npm builder builds, its functions on three runtimes, one the lab cannot run", () => {
  it("builds a function here in every profile asked for (SAM's own build is none of them); measures each other on its own runtime", () => {
    const app = mkdtempSync(join(tmpdir(), "warpstart-npm-app-"));
    try {
      mkdirSync(join(app, "src"));
      writeFileSync(join(app, "src/package.json"), JSON.stringify({ name: "plain", version: "1.0.0", type: "module" }));
      // Its INIT says what NODE_OPTIONS it got, and awaits at the top level; Node says what its compile cache did (NODE_DEBUG_NATIVE).
      writeFileSync(
        join(app, "src/index.mjs"),
        'console.log("NODE_OPTIONS is", process.env.NODE_OPTIONS);\nconst plain = await Promise.resolve(true);\nexport const handler = async () => ({ plain });\n',
      );
      writeFileSync(
        join(app, "template.yaml"),
        [
          'AWSTemplateFormatVersion: "2010-09-09"',
          "Transform: AWS::Serverless-2016-10-31",
          "Resources:",
          "  Plain: # SAM's npm builder: no Metadata",
          "    Type: AWS::Serverless::Function",
          "    Properties: { Runtime: nodejs22.x, Handler: index.handler, CodeUri: src/, Environment: { Variables: { NODE_DEBUG_NATIVE: COMPILE_CACHE } } }",
          "  Legacy:",
          "    Type: AWS::Serverless::Function",
          "    Properties: { Runtime: nodejs14.x, Handler: index.handler, CodeUri: src/ }",
          "  Newer:",
          "    Type: AWS::Serverless::Function",
          "    Properties: { Runtime: nodejs24.x, Handler: index.handler, CodeUri: src/ }",
          "",
        ].join("\n"),
      );
      const template = join(app, "template.yaml");
      // npm offline: SAM's npm builder installs nothing here, and asks no registry.
      const offline = { npm_config_offline: "true" };
      // Warp and the peers, each built for each runtime: one that cannot be built on one runtime is measured on the other.
      const profiles = benchWith(
        offline,
        "--template",
        template,
        "--functions",
        "Plain",
        "--profiles",
        "SamEsbuild,NodeCompileCache,Warp",
        "--runtimes",
        "nodejs22.x,nodejs24.x",
        "--rounds",
        "1",
        "--verbose",
        "--out",
        join(app, "profiles"),
      );
      expect(profiles.stderr).not.toMatch(/^error:/m);
      expect(profiles.stderr).toContain("== building Plain with the SamEsbuild profile for nodejs24.x");
      expect(profiles.stderr).toContain("its handler awaits at the top level, which CommonJS cannot: built as an ES module for es2022");
      const built = readBenchResults(readFileSync(join(app, "profiles/results.json"), "utf8"));
      expect(built.cells.map((cell) => [cell.name, cell.runtime, cell.samples.length, cell.failures.length])).toEqual([
        ["Plain/SamEsbuild", "node22", 1, 0],
        ["Plain/Warp", "node22", 1, 0],
        ["Plain/SamEsbuild", "node24", 1, 0],
        ["Plain/NodeCompileCache", "node24", 1, 0],
        ["Plain/Warp", "node24", 1, 0],
      ]);
      expect(built.notBuilt).toEqual([
        {
          function: "Plain",
          profile: "NodeCompileCache",
          message: expect.stringMatching(/^on node22: Plain: Node 22's compile cache is keyed by each module's absolute path/),
        },
      ]);
      // SAM's esbuild builder turns source maps on for the function it builds with them; the lab loads Node's compile cache made at build time.
      const logged = (cell: string) =>
        profiles.stderr.split("\n").filter((line) => line.startsWith(`[${built.cells.find((c) => `${c.name}@${c.runtime}` === cell)!.functionName}]`));
      expect(logged("Plain/SamEsbuild@node24")).toContainEqual(expect.stringContaining("NODE_OPTIONS is --enable-source-maps"));
      expect(logged("Plain/Warp@node24").join("\n")).toMatch(/NODE_OPTIONS is --require=/); // the lab's own preloads alone
      expect(logged("Plain/NodeCompileCache@node24")).toContainEqual(expect.stringMatching(/V8 code cache for ESM file:.*\/index\.bundle\.mjs was accepted/));
      // Measured as SAM built them, each on its own runtime, the cells say so; the one on nodejs14.x is left out, saying why.
      const asBuilt = benchWith(offline, "--no-build", "--template", template, "--rounds", "1", "--out", join(app, "own"));
      expect(asBuilt.stderr).not.toMatch(/^error:/m);
      expect(asBuilt.stderr).toContain("== not measured: Legacy: the lab cannot run Runtime nodejs14.x");
      const own = readBenchResults(readFileSync(join(app, "own/results.json"), "utf8"));
      expect(own.notBuilt).toEqual([{ function: "Legacy", profile: AS_BUILT, message: expect.stringMatching(/^the lab cannot run Runtime nodejs14\.x/) }]);
      expect(own.runtimes).toEqual(["node22", "node24"]);
      expect(own.cells.map((cell) => [cell.name, cell.profile, cell.runtime, cell.samples.length])).toEqual([
        ["Plain", AS_BUILT, "node22", 1],
        ["Newer", AS_BUILT, "node24", 1],
      ]);
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  }, 240_000);
});
