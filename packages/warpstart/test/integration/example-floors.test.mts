// The examples' Floors against their SDK twins (the function each one's FloorOf names): both as
// `sam build` built them (globalSetup), each run once in a fresh Node 22 process against the
// local AWS, first before the template's resources exist, then with them.

import { builtTemplateOf } from "../../core/paths.mts";
import { RUNTIMES } from "../../core/runtimes.mts";
import { readTemplate } from "../../core/template.mts";
import { functionEvent } from "../../emulation/events.mts";
import type { FunctionSpec } from "../../emulation/function-environment.mts";
import { servicesOf } from "../../emulation/function-environment.mts";
import { type LocalAws, startLocalAws } from "../../emulation/local-aws/local-aws.mts";
import { createResources } from "../../emulation/local-aws/resources.mts";
import { EXAMPLES_TEMPLATE } from "../support/demo.mts";
import { builtFunction, succeeded } from "../support/lab.mts";
import { runOnce } from "../support/run-once.mts";

const examples = readTemplate(EXAMPLES_TEMPLATE);
const FLOORS = examples.functions.filter((fn) => fn.floorOf !== null).map((fn) => [fn.logicalId, fn.floorOf!] as const);

let aws: LocalAws;
beforeAll(async () => {
  aws = await startLocalAws();
}, 60_000); // gunicorn's start; jest applies only a global testTimeout, 5 s by default
afterAll(async () => {
  await aws?.stop();
});

/** An examples function as built, run once with its route's event (and a query string). */
function run(logicalId: string, query: Record<string, string> = {}) {
  const fn = readTemplate(builtTemplateOf(EXAMPLES_TEMPLATE)).functions.find((candidate) => candidate.logicalId === logicalId)!;
  const spec: FunctionSpec = { name: fn.logicalId, codeDir: fn.codeDir, handler: fn.handler, memoryMb: fn.memoryMb, runtime: RUNTIMES.node22 };
  return runOnce(spec, functionEvent(fn, query), servicesOf(aws));
}

/** What a Floor must answer as its twin does: the body without the build's facts and the timings. */
function comparable(body: string) {
  const { function: _function, profile: _profile, sdkVersion: _sdkVersion, codeCache: _codeCache, initCallMs, calls, ...rest } = JSON.parse(body);
  expect(initCallMs).toBeGreaterThan(0);
  return calls === undefined ? rest : { ...rest, callCount: calls.count, timedCalls: calls.latenciesMs.length };
}

describe("before the resources exist", () => {
  it.each(FLOORS)("%s's INIT fails with the service's error, as %s's does", async (floor, twin) => {
    const [floorResult, twinResult] = await Promise.all([run(floor), run(twin)]);
    if (floorResult.ok || twinResult.ok) throw new Error("INIT succeeded, but it should have failed");
    expect(twinResult.errorType).toMatch(/^(ParameterNotFound|ResourceNotFoundException)$/);
    expect(floorResult.errorType).toBe(twinResult.errorType);
    expect(floorResult.errorMessage).toMatch(/^(SSM GetParameter|Secrets Manager GetSecretValue|DynamoDB DescribeTable) failed \(endpoint https:\/\/[^)]+\): /);
    expect(floorResult.errorMessage.endsWith(`: ${twinResult.errorType}: ${twinResult.errorMessage}`)).toBe(true);
  });
});

describe("with the resources", () => {
  beforeAll(async () => {
    const { notCreated } = await createResources(examples, aws);
    expect(notCreated).toBeNull();
  }, 60_000);

  it.each(FLOORS)("%s answers what %s answers, with no SDK", async (floor, twin) => {
    const query: Record<string, string> = floor === "DynamoDbFloor" ? { calls: "2" } : {};
    const [floorResult, twinResult] = [succeeded(await run(floor, query)), succeeded(await run(twin, query))];
    expect(JSON.parse(floorResult.response.body)).toMatchObject({ function: floor, profile: "Optimized", sdkVersion: "none", codeCache: "absent" });
    expect(comparable(floorResult.response.body)).toEqual(comparable(twinResult.response.body));
  });

  it("reads the parameter's value, the secret and the table's status from the local AWS", async () => {
    const bodies = await Promise.all(FLOORS.map(async ([floor]) => JSON.parse(succeeded(await run(floor)).response.body)));
    expect(bodies).toEqual([
      expect.objectContaining({ value: "hello from Parameter Store" }),
      expect.objectContaining({ secretLength: 32 }),
      expect.objectContaining({ tableStatus: "ACTIVE", calls: { count: 0, latenciesMs: [] } }),
    ]);
  });

  it.each(FLOORS)("%s's INIT loads no builtin the demo's Floor does not", async (floor) => {
    const [{ builtinsAtReady }, demo] = [succeeded(await run(floor)), succeeded(await runOnce(builtFunction("Floor"), {}, servicesOf(aws)))];
    expect(builtinsAtReady.filter((builtin) => !demo.builtinsAtReady.includes(builtin))).toEqual([]);
  });
});
