import {
  type ColdStartTimeline,
  type CpuProfile,
  chunkStepTable,
  cpuProfileSplit,
  cpuProfileTable,
  type PhaseResults,
  parseMarks,
  phaseChartSvg,
  phaseDurations,
  phaseReport,
  phaseTable,
} from "../../bench/phase-analysis.mts";

const MS = 1_000_000n;

/** A cold start whose phases last 30, 10, 60, 20 and 5 ms, with a 4 ms first invoke. */
function timeline(overrides: Partial<ColdStartTimeline> = {}): ColdStartTimeline {
  return {
    spawnedAt: 1000n * MS,
    readyAt: 1125n * MS,
    invokeStartedAt: 1130n * MS,
    invokeEndedAt: 1134n * MS,
    marks: { preload: 1030n * MS, "handler-import": 1040n * MS, "aws-request": 1100n * MS, "aws-response": 1120n * MS },
    ...overrides,
  };
}

test("each phase ends where the next begins, and INIT's phases add up to Init Duration", () => {
  const phases = phaseDurations(timeline());
  expect(phases).toEqual({ processStart: 30, runtimeClient: 10, handlerLoad: 60, awsCall: 20, restOfInit: 5, firstInvoke: 4 });
  expect(phases.processStart + phases.runtimeClient + phases.handlerLoad + phases.awsCall + phases.restOfInit).toBe(125);
});

test("without an AWS request during INIT, handler load runs to the end of INIT", () => {
  const marks = { preload: 1030n * MS, "handler-import": 1040n * MS };
  expect(phaseDurations(timeline({ marks }))).toMatchObject({ handlerLoad: 85, awsCall: 0, restOfInit: 0 });
});

test("a request made after INIT belongs to the first invoke, as a CommonJS handler's does", () => {
  const marks = { preload: 1030n * MS, "handler-import": 1040n * MS, "aws-request": 1131n * MS, "aws-response": 1133n * MS };
  expect(phaseDurations(timeline({ marks }))).toMatchObject({ handlerLoad: 85, awsCall: 0, restOfInit: 0, firstInvoke: 4 });
});

test("marks that are missing or out of order are an error, not a phase", () => {
  expect(() => phaseDurations(timeline({ marks: { preload: 1030n * MS } }))).toThrow("missing marks: got preload");
  const late = { ...timeline().marks, "handler-import": 1110n * MS };
  expect(() => phaseDurations(timeline({ marks: late }))).toThrow("phase marks out of order");
});

test("Warp's chunk loader's points split the handler load into four steps; out of order, they are an error", () => {
  const chunk = { "sdk-chunk-started": 1045n * MS, "sdk-chunk-compiled": 1050n * MS, "sdk-chunk-evaluated": 1080n * MS };
  expect(phaseDurations(timeline({ marks: { ...timeline().marks, ...chunk } })).chunkSteps).toEqual({
    beforeChunk: 5,
    chunkCompile: 5,
    chunkEvaluate: 30,
    afterChunk: 20,
  });
  expect(phaseDurations(timeline()).chunkSteps).toBeUndefined();
  const late = { ...chunk, "sdk-chunk-evaluated": 1105n * MS }; // after the request
  expect(() => phaseDurations(timeline({ marks: { ...timeline().marks, ...late } }))).toThrow("SDK chunk marks out of order");
});

test("the marks file parses line by line, and anything else in it is an error", () => {
  expect(parseMarks("preload 12\nhandler-import 15\n")).toEqual({ preload: 12n, "handler-import": 15n });
  expect(() => parseMarks("preload 12\nnoise\n")).toThrow('not a phase mark: "noise"');
});

function results(): PhaseResults {
  const warp = phaseDurations(timeline());
  return {
    schema: 2,
    startedAt: "2026-11-23T00:00:00.000Z",
    rounds: 3,
    fidelity: "Lambda's network",
    functions: [
      {
        name: "Warp",
        profile: "Warp",
        withMarks: [warp, { ...warp, handlerLoad: 70 }, { ...warp, handlerLoad: 50 }],
        initWithoutMarksMs: [120, 118, 122],
        cpuProfiled: [],
        failures: [],
      },
      { name: "A<B>", profile: "Optimized", withMarks: [], initWithoutMarksMs: [], cpuProfiled: [], failures: ["round 1: INIT did not complete (init-error)"] },
    ],
    versions: { esbuild: "0.28.2" },
  };
}

test("the table gives each phase's p50, Init p50 with and without the marks, and leaves out functions with no cold start", () => {
  const table = phaseTable(results(), "text");
  expect(table).toMatch(/Warp\s+3\s+30\.0\s+10\.0\s+60\.0\s+20\.0\s+5\.0\s+4\.0\s+125\.0\s+120\.0/);
  expect(table).not.toContain("A<B>");
});

test("the chunk table has a row per function with an SDK chunk, and is empty without one", () => {
  const steps = { beforeChunk: 5, chunkCompile: 5, chunkEvaluate: 30, afterChunk: 20 };
  const withChunk = results();
  withChunk.functions[0]!.withMarks = withChunk.functions[0]!.withMarks.map((durations) => ({ ...durations, chunkSteps: steps }));
  expect(chunkStepTable(withChunk, "text")).toMatch(/Warp\s+3\s+5\.0\s+5\.0\s+30\.0\s+20\.0\s+60\.0/);
  expect(chunkStepTable(results(), "text")).toBe("");
});

test("the report lists failures and versions; the chart escapes names and draws a bar per phase", () => {
  const report = phaseReport(results());
  expect(report).toContain("round 1: INIT did not complete (init-error)");
  expect(report).toContain("| esbuild | 0.28.2 |");
  const svg = phaseChartSvg({ ...results(), functions: [{ ...results().functions[0]!, name: "A&B" }] });
  expect(svg).toContain("A&amp;B");
  expect(svg.match(/<rect x=/g)).toHaveLength(6 + 6); // six phase segments and six legend keys
});

/**
 * A profile of 1 ms samples from t = 1000 ms: a builtin's load under the handler, the request's
 * creation, the GC, Warp's chunk (its cache deserialized, a module's top-level code, the first
 * call down into a builtin's function), the handler's own code.
 */
function profile(): CpuProfile {
  const frame = (id: number, functionName: string, url: string, lineNumber: number, children: number[] = []) => ({
    id,
    callFrame: { functionName, url, lineNumber },
    children,
  });
  const chunk = "file:///var/task/sdk.cjs";
  return {
    nodes: [
      frame(1, "(root)", "", -1, [2, 5]),
      frame(2, "", "file:///var/task/index.mjs", 0, [3, 4, 7, 8, 10]),
      frame(3, "compileForPublicLoader", "node:internal/bootstrap/realm", 10, [6]),
      frame(4, "request", "node:https", 20),
      frame(5, "(garbage collector)", "", -1),
      frame(6, "parse", "node:internal/url", 30),
      frame(7, "Script", "node:vm", 40),
      frame(8, "", chunk, 0, [9]),
      frame(9, "init_schemas", chunk, 120),
      frame(10, "send", chunk, 900, [11]),
      frame(11, "createHash", "node:crypto", 50),
    ],
    startTime: 1_000_000,
    // t = 1000 (before the handler's import), then 1040..1050 (in the handler load), then 1101 (after the request)
    samples: [2, 6, 3, 4, 5, 7, 9, 8, 11, 10, 2, 2, 2],
    timeDeltas: [0, 40_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 51_000],
  };
}

test("a profiled handler load is split by the nearest frame up each sample's stack that names a part", () => {
  const marks = { preload: 1030n * MS, "handler-import": 1040n * MS, "aws-request": 1100n * MS };
  // 1040 (a builtin's parse) and 1041: builtins; 1042 request; 1043 GC; 1044 the chunk's Script; 1045 and 1046
  // under the chunk's wrapper; 1047 (a builtin's function the chunk calls) and 1048 the SDK's call; 1049 and 1050
  // the handler's code, the last lasting up to 1101.
  expect(cpuProfileSplit(profile(), marks, 1125n * MS)).toEqual({
    builtins: 2,
    httpsRequest: 1,
    gc: 1,
    sdkCache: 1,
    sdkEvaluation: 2,
    sdkCall: 2,
    code: 1 + 51,
  });
  expect(() => cpuProfileSplit(profile(), { preload: 1n }, 1125n * MS)).toThrow("the profiled run left no handler-import mark");
});

test("the profile table has a row per profiled function, and is empty without one", () => {
  const profiled = results();
  profiled.functions[0]!.cpuProfiled = [{ builtins: 40, httpsRequest: 10, gc: 2, sdkCache: 5, sdkEvaluation: 4, sdkCall: 6, code: 30 }];
  expect(cpuProfileTable(profiled, "text")).toMatch(/Warp\s+1\s+40\.0\s+10\.0\s+2\.0\s+5\.0\s+4\.0\s+6\.0\s+30\.0\s+97\.0/);
  expect(cpuProfileTable(results(), "text")).toBe("");
});
