// The emulator through @aws-sdk/client-lambda, as the bench and users talk to it: cold and
// warm invokes of every built function, forced cold starts, and Lambda's failure semantics.

import { join } from "node:path";
import { GetFunctionConfigurationCommand, InvokeCommand, UpdateFunctionConfigurationCommand, waitUntilFunctionUpdatedV2 } from "@aws-sdk/client-lambda";
import { MASKED_ACCOUNT_ID } from "../../../../src/functions/identity/identity.mts";
import { RUNTIMES } from "../../core/runtimes.mts";
import { type Lab, labClient, startLab } from "../../lab/lab.mts";
import { CACHE_REJECTED } from "../../src/contract.mts";
import {
  eventOf,
  expectedSdkVersion,
  forceColdStart,
  functionEndpointOf,
  invokeLogged,
  profileOf,
  restartLocalAws,
  STS_FUNCTION_NAMES,
} from "../support/lab.mts";

const client = (lab: Lab) => labClient(lab, { maxAttempts: 1 });
const invoke = invokeLogged;

describe("the built template", () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.stop();
  });

  describe.each(STS_FUNCTION_NAMES)("%s", (variant) => {
    it("starts cold (Init Duration in REPORT), then answers warm from the same environment", async () => {
      const cold = await invoke(lab, variant, eventOf(variant));
      expect(cold.functionError).toBeUndefined();
      expect(cold.payload).toMatchObject({ statusCode: 200, headers: { "content-type": "application/json" } });
      const body = JSON.parse(cold.payload.body);
      expect(body).toMatchObject({
        coldstart: true,
        function: variant,
        profile: profileOf(variant),
        account: MASKED_ACCOUNT_ID,
        arn: `arn:aws:sts::${MASKED_ACCOUNT_ID}:user/moto`,
        path: `/${variant.toLowerCase()}`,
        nodeVersion: `v${RUNTIMES.node22.version}`,
        sdkVersion: expectedSdkVersion(variant),
        codeCache: profileOf(variant) === "Warp" ? "accepted" : "absent",
      });
      expect(cold.payload.body).not.toContain("123456789012");
      expect(body.stsRequestId).toMatch(/^\w{20,}$/);
      expect(body.lambdaRequestId).toBe(cold.report!.requestId);
      expect(body.initStsCallMs).toBeGreaterThan(0);
      expect(body.artifactBytes).toBeGreaterThan(0);
      expect(cold.log).toMatch(/^INIT_START Runtime Version: /m);
      expect(cold.report).toMatchObject({ initDurationMs: expect.any(Number), durationMs: expect.any(Number) });
      expect(cold.report!.initDurationMs).toBeGreaterThan(0);

      const warm = await invoke(lab, variant, eventOf(variant));
      expect(JSON.parse(warm.payload.body)).toMatchObject({ coldstart: false, function: variant });
      expect(warm.report).toMatchObject({ initDurationMs: null });
      expect(warm.log).not.toContain("INIT_START");
    });
  });

  it("starts Hello, the empty handler, cold, then answers warm", async () => {
    const cold = await invoke(lab, "Hello", eventOf("Hello"));
    expect(cold.functionError).toBeUndefined();
    expect(cold.payload).toEqual({ statusCode: 200, body: JSON.stringify({ coldstart: true, initializationType: "on-demand" }) });
    expect(cold.report!.initDurationMs).toBeGreaterThan(0);
    expect(JSON.parse((await invoke(lab, "Hello", eventOf("Hello"))).payload.body)).toEqual({ coldstart: false, initializationType: "on-demand" });
  });

  it("makes the next invoke cold after UpdateFunctionConfiguration, and the SDK waiter sees it done", async () => {
    await invoke(lab, "Optimized", eventOf("Optimized"));
    const lambda = client(lab);
    const update = await lambda.send(new UpdateFunctionConfigurationCommand({ FunctionName: "Optimized", Description: "force a cold start" }));
    expect(update.LastUpdateStatus).toBe("InProgress");
    await waitUntilFunctionUpdatedV2({ client: lambda, maxWaitTime: 30 }, { FunctionName: "Optimized" });
    const config = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: "Optimized" }));
    expect(config).toMatchObject({ Description: "force a cold start", LastUpdateStatus: "Successful", MemorySize: 512, Runtime: "nodejs22.x" });
    const next = await invoke(lab, "Optimized", eventOf("Optimized"));
    expect(JSON.parse(next.payload.body).coldstart).toBe(true);
    expect(next.report!.initDurationMs).not.toBeNull();
  });

  it("runs Warp correctly when V8 rejects its code cache (other memory size, so other node flags)", async () => {
    const lambda = client(lab);
    await lambda.send(new UpdateFunctionConfigurationCommand({ FunctionName: "Warp", MemorySize: 1024 }));
    await waitUntilFunctionUpdatedV2({ client: lambda, maxWaitTime: 30 }, { FunctionName: "Warp" });
    try {
      const { functionError, payload, log } = await invoke(lab, "Warp", eventOf("Warp"));
      expect(functionError).toBeUndefined();
      expect(log).toContain(CACHE_REJECTED);
      expect(JSON.parse(payload.body)).toMatchObject({ codeCache: "rejected", coldstart: true, account: MASKED_ACCOUNT_ID, function: "Warp" });
    } finally {
      await lambda.send(new UpdateFunctionConfigurationCommand({ FunctionName: "Warp", MemorySize: 512 }));
      await waitUntilFunctionUpdatedV2({ client: lambda, maxWaitTime: 30 }, { FunctionName: "Warp" });
    }
    const { payload } = await invoke(lab, "Warp", eventOf("Warp"));
    expect(JSON.parse(payload.body).codeCache).toBe("accepted");
  });

  it("answers ResourceNotFoundException for an unknown function", async () => {
    await expect(invoke(lab, "NoSuchFunction")).rejects.toMatchObject({
      name: "ResourceNotFoundException",
      message: "Function not found: arn:aws:lambda:us-east-1:123456789012:function:NoSuchFunction",
    });
  });

  it("rejects a payload that is not JSON", async () => {
    const out = client(lab).send(new InvokeCommand({ FunctionName: "Optimized", Payload: Buffer.from("{not json") }));
    await expect(out).rejects.toMatchObject({ name: "InvalidRequestContentException" });
  });

  it("fails INIT with Runtime.InitError naming the endpoint when the local AWS is down, and retries INIT on the next invoke", async () => {
    const endpoint = functionEndpointOf(lab.aws);
    await forceColdStart(lab, "Optimized");
    await lab.aws.stop();
    try {
      const failed = await invoke(lab, "Optimized", eventOf("Optimized"));
      expect(failed.functionError).toBe("Unhandled");
      expect(failed.payload).toMatchObject({
        errorType: "Runtime.InitError",
        errorMessage: expect.stringContaining(`STS GetCallerIdentity failed during INIT (endpoint ${endpoint}): connect ECONNREFUSED`),
      });
      expect(failed.log).toMatch(/INIT_REPORT Init Duration: [\d.]+ ms\tPhase: init\tStatus: error\tError Type: Runtime.InitError/);
    } finally {
      lab.aws = await restartLocalAws(lab);
    }
    const retried = await invoke(lab, "Optimized", eventOf("Optimized"));
    expect(retried.functionError).toBeUndefined();
    expect(JSON.parse(retried.payload.body).coldstart).toBe(true);
  });
});

it("sends each custom resource's provider its Create request as it starts, and says what went wrong: no response, a timeout", async () => {
  const lab = await startLab({ template: join(import.meta.dirname, "../fixtures/lab/custom-resources.yaml") });
  try {
    expect(lab.customResources).toEqual([
      "Unanswered (Custom::Unanswered): the Create request went to its provider, and Echo sent no response to its ResponseURL: " +
        "CloudFormation would wait for one until the resource times out (an hour by default)",
      expect.stringMatching(
        /^TimedOut \(AWS::CloudFormation::CustomResource\): the Create request went to its provider, and Slow failed: .*Task timed out after 1\.00 seconds/,
      ),
    ]);
    // The provider's environment is reclaimed: its next invoke is a cold start.
    expect((await invoke(lab, "Echo")).payload).toMatchObject({ invocations: 1 });
  } finally {
    await lab.stop();
  }
});

describe("failure semantics", () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab({ template: join(import.meta.dirname, "../fixtures/lab/template.yaml") });
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it("runs functions with the node flags the runtime derives from memory size, on-demand", async () => {
    const { payload } = await invoke(lab, "Echo", { hello: "world" });
    expect(payload).toMatchObject({ event: { hello: "world" }, invocations: 1, initType: "on-demand" });
    expect(payload.argv).toEqual(expect.arrayContaining(["--max-semi-space-size=12", "--max-old-space-size=231"]));
  });

  it("puts the function's own log lines between START and END", async () => {
    const { log } = await invoke(lab, "Echo");
    expect(log).toMatch(/START RequestId: \S+ Version: \$LATEST\n.*echo invoked\s+2\nEND RequestId: /);
  });

  it("returns a handler's error as the runtime reports it", async () => {
    const { functionError, payload } = await invoke(lab, "Throws");
    expect(functionError).toBe("Unhandled");
    expect(payload).toMatchObject({ errorType: "TypeError", errorMessage: "the event has no name" });
  });

  it("gives Runtime.ExitError when the handler ends the process, then starts a new environment", async () => {
    const first = await invoke(lab, "Exits");
    expect(first.functionError).toBe("Unhandled");
    expect(first.payload).toEqual({
      errorType: "Runtime.ExitError",
      errorMessage: expect.stringMatching(/^RequestId: \S+ Error: Runtime exited with error: exit status 3$/),
    });
    const second = await invoke(lab, "Exits");
    expect(second.log).toContain("INIT_START");
  });

  it("names a call the local AWS does not serve, in the SDK's error and in a line of the lab's, even when the handler catches it", async () => {
    const { functionError, payload, log } = await invoke(lab, "NotServed");
    expect(functionError).toBeUndefined();
    const said = "the local AWS (moto 5.2.5) does not serve ssm GetCalendarState: moto implements ssm, not this operation; on Lambda this call reaches AWS";
    // Not retried: a 501 is no transient error.
    expect(payload).toEqual({ name: "NotServedByLocalAws", message: said, attempts: 1 });
    expect(log).toContain(`[warpstart lab] ${said}`);
  });

  it("gives Runtime.ExitError when the process exits during INIT", async () => {
    const { functionError, payload, log } = await invoke(lab, "ExitsAtInit");
    expect(functionError).toBe("Unhandled");
    expect(payload).toEqual({ errorType: "Runtime.ExitError", errorMessage: "Runtime exited with error: exit status 2" });
    expect(log).toMatch(/INIT_REPORT .*Status: error\tError Type: Runtime.ExitError/);
  });

  it("kills an invocation at its timeout and says so; the next invoke is cold", async () => {
    const timedOut = await invoke(lab, "Slow");
    expect(timedOut.functionError).toBe("Unhandled");
    expect(timedOut.payload).toEqual({
      errorType: "Sandbox.Timedout",
      errorMessage: expect.stringMatching(/^RequestId: \S+ Error: Task timed out after 1\.00 seconds$/),
    });
    expect(timedOut.log).toMatch(/REPORT RequestId: .*\tStatus: timeout\t$/m);
    const next = await invoke(lab, "Slow");
    expect(next.log).toContain("INIT_START");
  });
});
