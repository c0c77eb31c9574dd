// The handler module with the SDK mocked (aws-sdk-client-mock): INIT calls STS once, every
// invoke answers from that result. Build-time constants are provided on globalThis.
import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import type { Context } from "aws-lambda";
import { mockClient } from "aws-sdk-client-mock";
import { routeEvent } from "warpstart/events";
import { identityHandler, MASKED_ACCOUNT_ID } from "../../src/functions/identity/identity.mts";

const sts = mockClient(STSClient);
sts.on(GetCallerIdentityCommand).resolves({
  $metadata: { requestId: "sts-request-1" },
  UserId: "AROAEXAMPLEROLEID:identity-fn",
  Account: "123456789012",
  Arn: "arn:aws:sts::123456789012:assumed-role/identity-role/identity-fn",
});
Object.assign(globalThis, { WARPSTART_FUNCTION: "UnitTest", WARPSTART_PROFILE: "Optimized", WARPSTART_SDK_VERSION: "0.0.0-test" });

const { handler } = await import("../../src/functions/identity/index.mts");
/** What the module's INIT (its import, above) did, read before any test runs. */
const callsDuringInit = sts.commandCalls(GetCallerIdentityCommand).length;
const event = routeEvent("/optimized");
const context = (awsRequestId: string) => ({ awsRequestId }) as Context;
const bodyOf = (response: { body?: string }) => JSON.parse(response.body!);

describe("identity handler", () => {
  it("says coldstart only on the first invoke of an environment", async () => {
    // A handler of its own: a new environment, whatever the other tests invoked.
    const identity = { stsRequestId: "r", userId: "u", account: "a", arn: "arn", initStsCallMs: 1 };
    const fresh = identityHandler(identity, { function: "UnitTest", profile: "Optimized", sdkVersion: "0.0.0-test", moduleUrl: import.meta.url });
    const flags = [];
    for (const id of ["1", "2", "3"]) flags.push(bodyOf(await fresh(event, context(id))).coldstart);
    expect(flags).toEqual([true, false, false]);
  });

  it("calls GetCallerIdentity once, during INIT, and never in an invoke", async () => {
    expect(callsDuringInit).toBe(1);
    sts.resetHistory();
    await handler(event, context("a"));
    await handler(event, context("b"));
    expect(sts.commandCalls(GetCallerIdentityCommand)).toHaveLength(0);
  });

  it("answers with the masked identity, the build constants and the request ids", async () => {
    const response = await handler(event, context("lambda-request-1"));
    expect(response.statusCode).toBe(200);
    expect(response.headers).toEqual({ "content-type": "application/json" });
    expect(bodyOf(response)).toMatchObject({
      stsRequestId: "sts-request-1",
      lambdaRequestId: "lambda-request-1",
      userId: "AROAEXAMPLEROLEID:identity-fn",
      account: MASKED_ACCOUNT_ID,
      arn: `arn:aws:sts::${MASKED_ACCOUNT_ID}:assumed-role/identity-role/identity-fn`,
      path: "/optimized",
      function: "UnitTest",
      profile: "Optimized",
      sdkVersion: "0.0.0-test",
      nodeVersion: process.version,
      runtime: `node ${process.versions.node}`,
    });
    expect(response.body).not.toContain("123456789012");
    expect(typeof bodyOf(response).initStsCallMs).toBe("number");
    expect(bodyOf(response).artifactBytes).toBeGreaterThan(0);
  });

  it.each([[undefined], [null], ["not json"], [42], [[]], [{ rawPath: { nested: true } }]])("answers 200 to a malformed event %p", async (bad) => {
    const response = await handler(bad, context("bad-event"));
    expect(response.statusCode).toBe(200);
    expect(bodyOf(response).path).toBeNull();
  });

  it("answers without a context object", async () => {
    expect(bodyOf(await handler(event)).lambdaRequestId).toBeNull();
  });
});
