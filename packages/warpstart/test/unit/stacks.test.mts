// The --stack paths, with CloudFormation and Lambda mocked (aws-sdk-client-mock): reading a
// deployed stack's outputs, and the bench's loop of forced cold starts against the Lambda API.
// test/integration/deployed-stack.test.mts runs the same commands against a stand-in AWS.
import { CloudFormationClient, DescribeStacksCommand, ListStackResourcesCommand } from "@aws-sdk/client-cloudformation";
import { GetFunctionCommand, InvokeCommand, LambdaClient, UpdateFunctionConfigurationCommand } from "@aws-sdk/client-lambda";
import { mockClient } from "aws-sdk-client-mock";
import { stackApiUrl } from "../../cli/load.mts";
import { describeStack } from "../../core/stacks.mts";
import { runColdStarts } from "../../measure/cold-starts.mts";

const cloudformation = mockClient(CloudFormationClient);
const lambda = mockClient(LambdaClient);
beforeEach(() => {
  cloudformation.reset();
  lambda.reset();
});

const outputs = (entries: Record<string, string>) => ({
  Stacks: [
    {
      StackName: "s",
      CreationTime: new Date(),
      StackStatus: "CREATE_COMPLETE" as const,
      Outputs: Object.entries(entries).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
    },
  ],
});

describe("a deployed stack", () => {
  it("gives the bench its runtime and its functions' names from their <LogicalId>FunctionName outputs", async () => {
    cloudformation
      .on(DescribeStacksCommand, { StackName: "warpstart-deno" })
      .resolves(outputs({ Runtime: "deno", WarpFunctionName: "warpstart-deno-Warp-abc", ApiUrl: "https://x" }));
    const { runtime, functions } = await describeStack("warpstart-deno", "eu-west-1", ["Warp"], new CloudFormationClient({ region: "eu-west-1" }));
    expect(runtime).toBe("deno");
    expect([...functions]).toEqual([["Warp", "warpstart-deno-Warp-abc"]]);
  });

  it("counts as node22 when it has no Runtime output (stacks older than the parameter)", async () => {
    cloudformation.on(DescribeStacksCommand).resolves(outputs({ RawFunctionName: "r" }));
    expect((await describeStack("old", "us-east-1", ["Raw"], new CloudFormationClient({ region: "us-east-1" }))).runtime).toBe("node22");
  });

  it("names a function without a <LogicalId>FunctionName output by its AWS::Lambda::Function resource (a SAM app's stack), listed only then", async () => {
    cloudformation.on(DescribeStacksCommand).resolves(outputs({ WarpFunctionName: "s-Warp-abc" }));
    const client = new CloudFormationClient({ region: "eu-west-1" });
    expect([...(await describeStack("s", "eu-west-1", ["Warp"], client)).functions]).toEqual([["Warp", "s-Warp-abc"]]);
    expect(cloudformation.commandCalls(ListStackResourcesCommand)).toEqual([]);
    cloudformation.on(ListStackResourcesCommand).resolves({
      StackResourceSummaries: [
        {
          LogicalResourceId: "Thumbnails",
          PhysicalResourceId: "s-Thumbnails-xyz",
          ResourceType: "AWS::Lambda::Function",
          LastUpdatedTimestamp: new Date(),
          ResourceStatus: "CREATE_COMPLETE",
        },
        {
          LogicalResourceId: "ThumbnailsRole",
          PhysicalResourceId: "s-ThumbnailsRole-xyz",
          ResourceType: "AWS::IAM::Role",
          LastUpdatedTimestamp: new Date(),
          ResourceStatus: "CREATE_COMPLETE",
        },
      ],
    });
    expect([...(await describeStack("s", "eu-west-1", ["Warp", "Thumbnails"], client)).functions]).toEqual([
      ["Warp", "s-Warp-abc"],
      ["Thumbnails", "s-Thumbnails-xyz"],
    ]);
    cloudformation
      .on(ListStackResourcesCommand)
      .rejects(Object.assign(new Error("not authorized to perform: cloudformation:ListStackResources"), { name: "AccessDenied" }));
    await expect(describeStack("s", "eu-west-1", ["Thumbnails"], client)).rejects.toThrow(
      "cannot list the resources of the stack s in eu-west-1: not authorized to perform: cloudformation:ListStackResources",
    );
  });

  it("gives the load test its ApiUrl, or says it has none", async () => {
    cloudformation.on(DescribeStacksCommand).resolves(outputs({ ApiUrl: "https://abc.execute-api.eu-west-1.amazonaws.com" }));
    await expect(stackApiUrl("warpstart", "eu-west-1", new CloudFormationClient({ region: "eu-west-1" }))).resolves.toBe(
      "https://abc.execute-api.eu-west-1.amazonaws.com",
    );
    cloudformation.on(DescribeStacksCommand).resolves(outputs({}));
    await expect(stackApiUrl("other", "eu-west-1", new CloudFormationClient({ region: "eu-west-1" }))).rejects.toThrow("stack other has no ApiUrl output");
  });

  it("names the stack when CloudFormation cannot describe it", async () => {
    cloudformation.on(DescribeStacksCommand).rejects(Object.assign(new Error("Stack with id nope does not exist"), { name: "ValidationError" }));
    await expect(describeStack("nope", "eu-west-1", ["Warp"], new CloudFormationClient({ region: "eu-west-1" }))).rejects.toThrow(
      "cannot describe the stack nope in eu-west-1: Stack with id nope does not exist",
    );
  });
});

describe("the bench's loop against a Lambda API", () => {
  const report = (init?: number) =>
    Buffer.from(
      `START RequestId: r Version: $LATEST\nEND RequestId: r\nREPORT RequestId: r\tDuration: 2.00 ms\tBilled Duration: 3 ms\tMemory Size: 512 MB\tMax Memory Used: 60 MB${init === undefined ? "" : `\tInit Duration: ${init} ms`}\t\n`,
    ).toString("base64");
  /** An Invoke payload as the SDK hands it over: bytes that can also say themselves as text. */
  const blob = (text: string) => Object.assign(Buffer.from(text), { transformToString: () => text });
  const body = blob(JSON.stringify({ statusCode: 200, body: JSON.stringify({ runtime: "node 22.23.3", sdkVersion: "3.1169.0", codeCache: "accepted" }) }));
  const cell = { name: "Warp", function: "Warp", profile: "Warp", runtime: "node22", functionName: "stack-Warp-abc", event: () => ({}) };

  it("forces each cold start with a configuration update and the SDK's waiter, reads Init Duration, then times a warm invoke", async () => {
    lambda.on(UpdateFunctionConfigurationCommand).resolves({ LastUpdateStatus: "InProgress" });
    lambda.on(GetFunctionCommand).resolves({ Configuration: { LastUpdateStatus: "Successful", State: "Active" } });
    lambda
      .on(InvokeCommand)
      .resolvesOnce({ StatusCode: 200, Payload: body, LogResult: report(123.45) })
      .resolves({ StatusCode: 200, Payload: body, LogResult: report() });
    const run = await runColdStarts({ client: new LambdaClient({ region: "eu-west-1" }), cells: [cell], rounds: 1, runId: "t" });
    expect(run.cells[0]).toMatchObject({
      failures: [],
      initMs: [123.45],
      samples: [{ round: 0, initMs: 123.45, durationMs: 2, warmE2eMs: expect.any(Number) }],
    });
    expect(run.reported["stack-Warp-abc"]).toMatchObject({ runtime: "node 22.23.3", sdkVersion: "3.1169.0", codeCache: "accepted", codeCacheRejected: false });
    expect(lambda.commandCalls(UpdateFunctionConfigurationCommand)[0]!.args[0].input).toEqual({
      FunctionName: "stack-Warp-abc",
      Description: "warpstart bench t round 0",
    });
    expect(lambda.commandCalls(InvokeCommand)[0]!.args[0].input).toMatchObject({ FunctionName: "stack-Warp-abc", LogType: "Tail" });
  });

  it("retires each cell's environment after its warm invoke, before the next cell's cold start", async () => {
    lambda.on(UpdateFunctionConfigurationCommand).resolves({});
    lambda.on(GetFunctionCommand).resolves({ Configuration: { LastUpdateStatus: "Successful" } });
    const events: string[] = [];
    let invokes = 0;
    lambda.on(InvokeCommand).callsFake((input: { FunctionName: string }) => {
      events.push(`invoke ${input.FunctionName}`);
      return { StatusCode: 200, Payload: body, LogResult: report(invokes++ % 2 === 0 ? 80 : undefined) }; // cold, warm, cold, warm
    });
    const other = { ...cell, name: "Other", functionName: "stack-Other-abc" };
    const run = await runColdStarts({
      client: new LambdaClient({ region: "eu-west-1" }),
      cells: [cell, other],
      rounds: 1,
      runId: "t",
      random: () => 0.99, // keeps the order
      retire: async (functionName) => void events.push(`retire ${functionName}`),
    });
    expect(events).toEqual([
      "invoke stack-Warp-abc",
      "invoke stack-Warp-abc",
      "retire stack-Warp-abc",
      "invoke stack-Other-abc",
      "invoke stack-Other-abc",
      "retire stack-Other-abc",
    ]);
    expect(run.cells.flatMap((result) => result.failures)).toEqual([]);
  });

  it("counts a cold invoke that reports no Init Duration as a failure, never as a sample", async () => {
    lambda.on(UpdateFunctionConfigurationCommand).resolves({});
    lambda.on(GetFunctionCommand).resolves({ Configuration: { LastUpdateStatus: "Successful" } });
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, Payload: body, LogResult: report() });
    const run = await runColdStarts({ client: new LambdaClient({ region: "eu-west-1" }), cells: [cell], rounds: 1, runId: "t" });
    expect(run.cells[0]).toMatchObject({ samples: [], failures: [{ round: 0, phase: "cold", errorType: "NotCold" }] });
  });

  it("records a function error with Lambda's error type", async () => {
    lambda.on(UpdateFunctionConfigurationCommand).resolves({});
    lambda.on(GetFunctionCommand).resolves({ Configuration: { LastUpdateStatus: "Successful" } });
    lambda.on(InvokeCommand).resolves({
      StatusCode: 200,
      FunctionError: "Unhandled",
      Payload: blob(JSON.stringify({ errorType: "Runtime.InitError", errorMessage: "boom" })),
      LogResult: report(50),
    });
    const run = await runColdStarts({ client: new LambdaClient({ region: "eu-west-1" }), cells: [cell], rounds: 2, runId: "t" });
    expect(run.cells[0]!.failures).toEqual([0, 1].map((round) => ({ round, phase: "cold", errorType: "Runtime.InitError", message: "boom" })));
  });

  it("with initOfFailedHandlers (the doctor's), a handler that failed after a complete INIT still gives its Init Duration; a failed INIT does not", async () => {
    lambda.on(UpdateFunctionConfigurationCommand).resolves({});
    lambda.on(GetFunctionCommand).resolves({ Configuration: { LastUpdateStatus: "Successful" } });
    const failedInit = `INIT_REPORT Init Duration: 40.00 ms\tPhase: init\tStatus: error\tError Type: Runtime.ImportModuleError\n`;
    const handlerError = blob(JSON.stringify({ errorType: "TypeError", errorMessage: "Cannot read properties of undefined (reading 'Records')" }));
    lambda
      .on(InvokeCommand)
      .resolvesOnce({ StatusCode: 200, FunctionError: "Unhandled", Payload: handlerError, LogResult: report(70) })
      .resolvesOnce({
        StatusCode: 200,
        FunctionError: "Unhandled",
        Payload: blob(JSON.stringify({ errorType: "Runtime.ImportModuleError", errorMessage: "no module" })),
        LogResult: Buffer.concat([Buffer.from(failedInit), Buffer.from(report(45), "base64")]).toString("base64"),
      });
    const options = { client: new LambdaClient({ region: "eu-west-1" }), cells: [cell], rounds: 2, runId: "t", random: () => 0.99 };
    const run = await runColdStarts({ ...options, initOfFailedHandlers: true });
    expect(run.cells[0]).toMatchObject({ initMs: [70], samples: [{ round: 0, initMs: 70, warmE2eMs: null }] });
    expect(run.cells[0]!.failures.map((failure) => failure.errorType)).toEqual(["TypeError", "Runtime.ImportModuleError"]);
    // The bench's loop: a failed handler is a failed round.
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, FunctionError: "Unhandled", Payload: handlerError, LogResult: report(70) });
    expect((await runColdStarts(options)).cells[0]!.samples).toEqual([]);
  });

  it("fails the cold invoke of a cell whose event cannot be made with what making it said, the other cells measured", async () => {
    lambda.on(UpdateFunctionConfigurationCommand).resolves({});
    lambda.on(GetFunctionCommand).resolves({ Configuration: { LastUpdateStatus: "Successful" } });
    lambda
      .on(InvokeCommand)
      .resolvesOnce({ StatusCode: 200, Payload: body, LogResult: report(80) })
      .resolves({ StatusCode: 200, Payload: body, LogResult: report() });
    const unknown = Object.assign(new Error("Thing's sample event events/Thing.json is not JSON: Unexpected end of JSON input"), { name: "UsageError" });
    const eventless = {
      ...cell,
      name: "Thing",
      functionName: "stack-Thing-abc",
      event: () => {
        throw unknown;
      },
    };
    const run = await runColdStarts({ client: new LambdaClient({ region: "eu-west-1" }), cells: [eventless, cell], rounds: 1, runId: "t" });
    expect(run.cells.map((result) => [result.name, result.samples.length, result.failures])).toEqual([
      ["Thing", 0, [{ round: 0, phase: "cold", errorType: "UsageError", message: unknown.message }]],
      ["Warp", 1, []],
    ]);
    expect(lambda.commandCalls(InvokeCommand).map((call) => call.args[0].input.FunctionName)).toEqual(["stack-Warp-abc", "stack-Warp-abc"]);
  });
});
