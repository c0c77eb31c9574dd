// traceColdStart against the lab serving the built template (the build from globalSetup): where
// the INIT of Warp, its Floor and the empty handler goes, what each loads and calls, and a
// failed INIT or first invoke as an ColdStartFailure that says the runtime's error.
import { join } from "node:path";
import { readTemplate } from "../../core/template.mts";
import { ColdStartFailure, HEAVY_BUILTINS, type InitTrace, traceColdStart } from "../../lab/init-trace.mts";
import { type Lab, startLab } from "../../lab/lab.mts";

const TRACED = ["Warp", "Floor", "Hello"];
/** Functions that misbehave on purpose (test/fixtures/lab), served beside the template's. */
const MISBEHAVING = readTemplate(join(import.meta.dirname, "../fixtures/lab/template.yaml")).functions.filter((fn) =>
  ["SyntaxError", "Throws"].includes(fn.logicalId),
);

let lab: Lab;
const traces = new Map<string, InitTrace>();
beforeAll(async () => {
  lab = await startLab({ only: TRACED, extraFunctions: MISBEHAVING });
  for (const name of TRACED) traces.set(name, await traceColdStart(lab, lab.lambda.served(name)));
});
afterAll(async () => {
  await lab?.stop();
});

describe.each(TRACED)("%s", (name) => {
  it("splits INIT into phases that add up to its Init Duration", () => {
    const { initMs, phases: split } = traces.get(name)!;
    const phases = split!;
    for (const phase of Object.values(phases)) expect(phase).toBeGreaterThanOrEqual(0);
    expect(phases.beforeHandlerMs).toBeGreaterThan(0); // the process and the runtime client start first
    expect(phases.loadingCodeMs).toBeGreaterThan(0);
    const sum = phases.beforeHandlerMs + phases.loadingCodeMs + phases.topLevelWorkMs + phases.afterHandlerMs;
    expect(Math.abs(sum - initMs)).toBeLessThan(2);
  });

  it("loads none of the heavy builtins during INIT", () => {
    expect(traces.get(name)!.builtins.filter((builtin) => HEAVY_BUILTINS.includes(builtin))).toEqual([]);
  });
});

describe.each(["Warp", "Floor"])("%s", (name) => {
  it("calls STS GetCallerIdentity once during INIT, in its top-level work, and loads node:https for it", () => {
    const { awsCalls, phases: split, builtins } = traces.get(name)!;
    const phases = split!;
    expect(awsCalls).toEqual([{ service: "sts", operation: "GetCallerIdentity", startMs: expect.any(Number), ms: expect.any(Number), status: 200 }]);
    // It reaches the local AWS after the request starts and is answered before the import resolves
    // (give or take the millisecond of the wall clock the local AWS stamps it on).
    const [call] = awsCalls;
    const topLevelWorkStart = phases.beforeHandlerMs + phases.loadingCodeMs;
    expect(phases.topLevelWorkMs).toBeGreaterThan(0);
    expect(call!.startMs).toBeGreaterThan(topLevelWorkStart - 2);
    expect(call!.startMs + call!.ms).toBeLessThan(topLevelWorkStart + phases.topLevelWorkMs + 2);
    expect(builtins).toContain("node:https");
  });
});

it("Warp's code cache is accepted", () => {
  expect(traces.get("Warp")!.codeCacheRejected).toBe(false);
});

it("Hello, the empty handler, calls nothing, loads no builtin and has no top-level work", () => {
  expect(traces.get("Hello")).toMatchObject({ awsCalls: [], builtins: [], phases: { topLevelWorkMs: 0 } });
});

it("a failed INIT is a ColdStartFailure of INIT with the runtime's error type and message", async () => {
  const failure = traceColdStart(lab, lab.lambda.served("SyntaxError"));
  await expect(failure).rejects.toMatchObject({
    phase: "init",
    message: "SyntaxError: INIT failed (init-error): Runtime.UserCodeSyntaxError: SyntaxError: Unexpected end of input",
  });
  await expect(failure).rejects.toBeInstanceOf(ColdStartFailure);
});

it("a failed first invoke is a ColdStartFailure of the invoke with the event it was given and the handler's error", async () => {
  await expect(traceColdStart(lab, lab.lambda.served("Throws"))).rejects.toMatchObject({
    phase: "invoke",
    message:
      "Throws: the first invoke, given an event shaped for its HttpApi trigger Get (sam local generate-event), failed (error): TypeError: the event has no name",
  });
});
