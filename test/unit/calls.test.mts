// The event's ?calls=K (K sequential GetCallerIdentity calls in one invoke, with the INIT's
// client), initializationType in the body, and the CommonJS pattern's INIT call (startedAtInit).
import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import type { Context } from "aws-lambda";
import { mockClient } from "aws-sdk-client-mock";
import { routeEvent } from "warpstart/events";
import { type CallerIdentity, identityHandler, MAX_CALLS, requestedCalls, sequentialCalls, startedAtInit } from "../../src/functions/identity/identity.mts";

const sts = mockClient(STSClient);
const IDENTITY = { $metadata: { requestId: "sts-request" }, UserId: "AIDAEXAMPLE", Account: "123456789012", Arn: "arn:aws:iam::123456789012:user/u" };
sts.on(GetCallerIdentityCommand).resolves(IDENTITY);
Object.assign(globalThis, { WARPSTART_FUNCTION: "UnitTest", WARPSTART_PROFILE: "Optimized", WARPSTART_SDK_VERSION: "0.0.0-test" });

const { handler } = await import("../../src/functions/identity/index.mts");
/** What the module's INIT (its import, above) did, read before any test runs. */
const callsDuringInit = sts.commandCalls(GetCallerIdentityCommand).length;
const optimizedEvent = routeEvent("/optimized");
/** The route's event with a query string, as API Gateway sends it. */
const withQuery = (queryStringParameters: Record<string, string>) => ({
  ...optimizedEvent,
  rawQueryString: new URLSearchParams(queryStringParameters).toString(),
  queryStringParameters,
});
const bodyOf = (response: { body?: string }) => JSON.parse(response.body!);
const context = { awsRequestId: "lambda-request" } as Context;

describe("requestedCalls", () => {
  it.each([
    ["1", 1],
    ["10", 10],
    ["050", MAX_CALLS],
  ])("reads calls=%s as %d", (calls, count) => {
    expect(requestedCalls(withQuery({ calls }))).toBe(count);
  });

  it.each([
    ["absent: no query string", optimizedEvent],
    ["absent: another parameter", withQuery({ other: "3" })],
    ["zero", withQuery({ calls: "0" })],
    ["too large", withQuery({ calls: String(MAX_CALLS + 1) })],
    ["far too large", withQuery({ calls: "1e9" })],
    ["negative", withQuery({ calls: "-3" })],
    ["not a whole number", withQuery({ calls: "2.5" })],
    ["not a number", withQuery({ calls: "many" })],
    ["empty", withQuery({ calls: "" })],
    ["repeated (API Gateway joins them with commas)", withQuery({ calls: "2,3" })],
    ["not a string", { queryStringParameters: { calls: 3 } }],
    ["a null query", { queryStringParameters: null }],
    ["no event at all", undefined],
    ["a string event", "calls=3"],
  ])("is 0 when the parameter is %s", (_, event) => {
    expect(requestedCalls(event)).toBe(0);
  });
});

describe("the handler with ?calls=K", () => {
  it("makes K sequential calls with the INIT's client, beside INIT's one", async () => {
    expect(callsDuringInit).toBe(1);
    sts.resetHistory();
    const body = bodyOf(await handler(withQuery({ calls: "3" }), context));
    expect(sts.commandCalls(GetCallerIdentityCommand)).toHaveLength(3);
    expect(body.calls).toEqual({ count: 3, latenciesMs: [expect.any(Number), expect.any(Number), expect.any(Number)] });
    expect(body.calls.latenciesMs.every((ms: number) => ms >= 0)).toBe(true);
  });

  it("answers as before with calls { count: 0 } when none are asked or the value is invalid", async () => {
    sts.resetHistory();
    for (const event of [optimizedEvent, withQuery({ calls: "500" }), withQuery({ calls: "x" }), null]) {
      const response = await handler(event, context);
      expect(response.statusCode).toBe(200);
      expect(bodyOf(response).calls).toEqual({ count: 0, latenciesMs: [] });
    }
    expect(sts.commandCalls(GetCallerIdentityCommand)).toHaveLength(0);
  });

  it("keeps the body's other fields and adds initializationType from the environment", async () => {
    const saved = process.env.AWS_LAMBDA_INITIALIZATION_TYPE;
    try {
      process.env.AWS_LAMBDA_INITIALIZATION_TYPE = "provisioned-concurrency";
      const body = bodyOf(await handler(withQuery({ calls: "1" }), context));
      expect(body).toMatchObject({
        initializationType: "provisioned-concurrency",
        stsRequestId: "sts-request",
        lambdaRequestId: "lambda-request",
        path: "/optimized",
        function: "UnitTest",
        profile: "Optimized",
        calls: { count: 1 },
      });
      delete process.env.AWS_LAMBDA_INITIALIZATION_TYPE;
      expect(bodyOf(await handler(optimizedEvent, context)).initializationType).toBeNull();
    } finally {
      if (saved === undefined) delete process.env.AWS_LAMBDA_INITIALIZATION_TYPE;
      else process.env.AWS_LAMBDA_INITIALIZATION_TYPE = saved;
    }
  });

  it("fails the invoke, saying which call failed, when one of the calls fails", async () => {
    let call = 0;
    sts.on(GetCallerIdentityCommand).callsFake(() => {
      if (++call === 2) throw new Error("connect ECONNREFUSED 127.0.0.1:1");
      return IDENTITY;
    });
    try {
      await expect(handler(withQuery({ calls: "3" }), context)).rejects.toThrow("STS GetCallerIdentity call 2 of 3 failed: connect ECONNREFUSED 127.0.0.1:1");
      expect(call).toBe(2);
    } finally {
      sts.on(GetCallerIdentityCommand).resolves(IDENTITY);
    }
  });
});

describe("sequentialCalls", () => {
  it("waits for each call before starting the next", async () => {
    const log: string[] = [];
    let n = 0;
    const call = async () => {
      const i = ++n;
      log.push(`start ${i}`);
      await new Promise((resolve) => setTimeout(resolve, 1));
      log.push(`end ${i}`);
    };
    expect((await sequentialCalls(2, call)).count).toBe(2);
    expect(log).toEqual(["start 1", "end 1", "start 2", "end 2"]);
  });

  it("makes no call for 0", async () => {
    let calls = 0;
    expect(await sequentialCalls(0, async () => calls++)).toEqual({ count: 0, latenciesMs: [] });
    expect(calls).toBe(0);
  });
});

describe("startedAtInit (the CommonJS handler's INIT call)", () => {
  const identity: CallerIdentity = { stsRequestId: "r", userId: "u", account: "a", arn: "arn", initStsCallMs: 1 };
  const build = { function: "Cjs", profile: "Optimized", sdkVersion: "0.0.0-test", moduleUrl: import.meta.url };
  /** An INIT call that answers `outcomes` in turn (an Error rejects), counting how often it was started. */
  function stsCall(...outcomes: (CallerIdentity | Error)[]) {
    const call = Object.assign(
      async () => {
        const outcome = outcomes[Math.min(call.started++, outcomes.length - 1)]!;
        if (outcome instanceof Error) throw outcome;
        return outcome;
      },
      { started: 0 },
    );
    return call;
  }

  it("starts the call at once and every invoke answers from that one call", async () => {
    const start = stsCall(identity);
    const cjsHandler = identityHandler(startedAtInit(start), build);
    expect(start.started).toBe(1);
    const bodies = [bodyOf(await cjsHandler({}, context)), bodyOf(await cjsHandler({}, context))];
    expect(bodies.map((body) => [body.coldstart, body.stsRequestId])).toEqual([
      [true, "r"],
      [false, "r"],
    ]);
    expect(start.started).toBe(1);
  });

  it("leaves no unhandled rejection when the call fails before any invoke; that invoke fails with it, the next calls again", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const start = stsCall(new Error("STS GetCallerIdentity failed during INIT (endpoint https://127.0.0.1:1): connect ECONNREFUSED"), identity);
      const cjsHandler = identityHandler(startedAtInit(start), build);
      // The call rejects within this turn of the event loop, with no invoke waiting; Node reports
      // an unhandled rejection before the next turn begins.
      await new Promise((resolve) => setImmediate(resolve));
      await expect(cjsHandler({}, context)).rejects.toThrow("STS GetCallerIdentity failed during INIT (endpoint https://127.0.0.1:1): connect ECONNREFUSED");
      const body = bodyOf(await cjsHandler({}, context));
      expect(body).toMatchObject({ coldstart: true, stsRequestId: "r" });
      expect(start.started).toBe(2);
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
