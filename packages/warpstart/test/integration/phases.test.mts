// `npm run phases -- --cpu-prof` against the lab (the build from globalSetup): two rounds of a Warp
// function and the empty handler, then the files a user opens. No timing is asserted: only that each phase
// (and each step of Warp's chunk loading) was seen where it must be.
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHUNK_STEPS, PHASES, type PhaseResults } from "../../bench/phase-analysis.mts";
import { NODE22 } from "../../core/paths.mts";
import { DEMO_ROOT } from "../support/demo.mts";
import { WARPSTART } from "../support/warpstart.mts";

describe("npm run phases -- --functions Warp,Hello --rounds 2 --cpu-prof", () => {
  const out = mkdtempSync(join(tmpdir(), "warpstart-phases-"));
  let run: SpawnSyncReturns<string>;
  let results: PhaseResults;
  beforeAll(() => {
    run = spawnSync(NODE22, [WARPSTART, "phases", "--no-build", "--functions", "Warp,Hello", "--rounds", "2", "--cpu-prof", "--out", out], {
      cwd: DEMO_ROOT,
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, CI: "true" },
    });
    results = JSON.parse(readFileSync(join(out, "phases.json"), "utf8"));
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("exits 0 with the phase table on stdout and the report's files written", () => {
    expect(run.stderr).not.toMatch(/failed \d+ time/);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^function\s+n\s+process start\s+runtime client\s+handler load\s+AWS call\s+rest of INIT\s+first invoke\s+Init p50/m);
    for (const file of ["phases.md", "phases.svg"]) expect(existsSync(join(out, file))).toBe(true);
  });

  it("times every phase of a function that calls AWS during INIT, and no AWS call for one that does not", () => {
    const [warp, hello] = results.functions;
    expect(warp).toMatchObject({ name: "Warp", profile: "Warp", failures: [] });
    expect(warp!.withMarks).toHaveLength(2);
    expect(warp!.initWithoutMarksMs).toHaveLength(2);
    for (const { id } of PHASES) expect(warp!.withMarks[0]![id]).toBeGreaterThan(0);
    // Warp's chunk loader said how far it got; the empty handler has no chunk.
    for (const { id } of CHUNK_STEPS) expect(warp!.withMarks[0]!.chunkSteps?.[id]).toBeGreaterThan(0);
    expect(hello!.withMarks[0]!.chunkSteps).toBeUndefined();
    expect(hello!.withMarks[0]).toMatchObject({ awsCall: 0, restOfInit: 0 });
    expect(hello!.withMarks[0]!.handlerLoad).toBeGreaterThan(0);
  });

  it("--cpu-prof: a third cold start under V8's profiler, its profile kept and its handler load split", () => {
    const [warp] = results.functions;
    expect(warp!.cpuProfiled).toHaveLength(2);
    // Warp's handler load loads builtins, deserializes the chunk's cache, evaluates the chunk, runs
    // the SDK's first call, creates the STS request and runs the handler's own code. Summed over two
    // rounds: a part of a few ms can go unsampled once on a loaded machine (seen once in CI).
    for (const part of ["builtins", "sdkCache", "sdkEvaluation", "sdkCall", "httpsRequest", "code"] as const) {
      expect(warp!.cpuProfiled.reduce((sum, split) => sum + split[part], 0)).toBeGreaterThan(0);
    }
    for (const round of [1, 2]) expect(existsSync(join(out, "profiles", `Warp-${round}.cpuprofile`))).toBe(true);
    expect(run.stdout).toContain("Handler load under V8's CPU profiler");
  });
});
