// The Lambda API's less-trodden paths, through @aws-sdk/client-lambda as users reach them:
// invocation types, payload limits, GetFunction, function names as ARNs, qualifiers ($LATEST, an
// alias with provisioned concurrency, a version, one that does not exist), an INIT that times out,
// provisioned INITs that fail (GetProvisionedConcurrencyConfig FAILED, the others served), a port already taken; and what the runtime client says of a
// handler it cannot load, the same on the managed runtime and on a custom one.

import { readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import {
  GetFunctionCommand,
  GetFunctionConfigurationCommand,
  GetProvisionedConcurrencyConfigCommand,
  InvokeCommand,
  ListFunctionsCommand,
  UpdateFunctionConfigurationCommand,
} from "@aws-sdk/client-lambda";
import { listenOnLoopback } from "../../core/loopback.mts";
import { NODE22 } from "../../core/paths.mts";
import { runtimeNamed } from "../../core/runtimes.mts";
import { type Lab, labClient, provisionFailureLines, startLab } from "../../lab/lab.mts";
import { eventually } from "../support/eventually.mts";
import { forceColdStart, invokeLogged } from "../support/lab.mts";

const FIXTURES = join(import.meta.dirname, "../fixtures/lab");

/** The gunicorn processes below this one (Linux /proc): the local AWS servers it started. */
const localAwsProcesses = () =>
  readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return (
          readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("gunicorn") &&
          readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ")[1] === String(process.pid)
        );
      } catch {
        return false;
      }
    });

describe("the Lambda API", () => {
  let lab: Lab;
  beforeAll(async () => {
    // An INIT limit short enough for HangsAtInit to reach soon, long enough for the INITs that fail on their own on a busy machine.
    lab = await startLab({ template: join(FIXTURES, "template.yaml"), parameterOverrides: {}, initTimeoutMs: 5_000, runtimes: [runtimeNamed(NODE22)] });
  });
  afterAll(async () => {
    await lab?.stop();
  });
  const client = () => labClient(lab, { maxAttempts: 1 });

  it("answers DryRun with 204 and starts nothing", async () => {
    const out = await client().send(new InvokeCommand({ FunctionName: "Echo", InvocationType: "DryRun", Payload: Buffer.from("{}") }));
    expect(out.StatusCode).toBe(204);
    expect(lab.lambda.environments("Echo")).toMatchObject({ idle: 0, busy: 0 });
  });

  it("answers Event with 202 at once and runs the function after", async () => {
    const out = await client().send(new InvokeCommand({ FunctionName: "Ticker", InvocationType: "Event", Payload: Buffer.from("{}") }));
    expect(out.StatusCode).toBe(202);
    await eventually("the event has run", () => lab.lambda.environments("Ticker").idle === 1, 15_000);
  });

  it("refuses a payload over 6 MB with RequestTooLargeException", async () => {
    const payload = Buffer.from(JSON.stringify({ blob: "x".repeat(6 * 1024 * 1024) }));
    await expect(client().send(new InvokeCommand({ FunctionName: "Echo", Payload: payload }))).rejects.toMatchObject({ name: "RequestTooLargeException" });
  });

  it("lists every function it serves (ListFunctions, as the AWS CLI and boto3 call it)", async () => {
    const out = await client().send(new ListFunctionsCommand({}));
    expect(out.Functions!.map((fn) => fn.FunctionName)).toEqual(lab.lambda.functionNames);
    expect(out.Functions!.find((fn) => fn.FunctionName === "Echo")).toMatchObject({
      Runtime: "nodejs22.x",
      MemorySize: 256,
      FunctionArn: "arn:aws:lambda:us-east-1:123456789012:function:Echo",
    });
    expect(out.NextMarker).toBeUndefined();
  });

  it("answers GetFunction with the configuration and the code's location", async () => {
    const out = await client().send(new GetFunctionCommand({ FunctionName: "Echo" }));
    expect(out.Configuration).toMatchObject({ FunctionName: "Echo", Runtime: "nodejs22.x", MemorySize: 256, Timeout: 1, Handler: "index.handler" });
    expect(out.Code).toMatchObject({ RepositoryType: "S3" });
  });

  it.each(["arn:aws:lambda:us-east-1:123456789012:function:Echo", "arn:aws:lambda:us-east-1:123456789012:function:Echo:$LATEST", "Echo:$LATEST"])(
    "invokes a function named %s",
    async (name) => {
      const { functionError, payload } = await invokeLogged(lab, name, { by: name });
      expect(functionError).toBeUndefined();
      expect(payload.event).toEqual({ by: name });
    },
  );

  it("ends an INIT that overruns its limit: Sandbox.Timedout, INIT_REPORT Status: timeout, no process left", async () => {
    const { functionError, payload, log } = await invokeLogged(lab, "HangsAtInit");
    expect(functionError).toBe("Unhandled");
    expect(payload).toEqual({ errorType: "Sandbox.Timedout", errorMessage: "Task timed out after 5.00 seconds (INIT)" });
    expect(log).toMatch(/^INIT_REPORT Init Duration: [\d.]+ ms\tPhase: init\tStatus: timeout\tError Type: Sandbox.Timedout$/m);
    expect(lab.lambda.environments("HangsAtInit")).toMatchObject({ idle: 0, busy: 0 });
  });

  it("runs a callback handler on nodejs22.x, as Lambda's runtime does outside Managed Instances", async () => {
    const { functionError, payload } = await invokeLogged(lab, "Callback", { answer: 42 });
    expect(functionError).toBeUndefined();
    expect(payload).toEqual({ style: "callback", waits: false, got: { answer: 42 } });
  });

  it("refuses a callback handler on nodejs24.x at INIT, with Lambda's error type and message", async () => {
    const { functionError, payload, log } = await invokeLogged(lab, "Callback24");
    expect(functionError).toBe("Unhandled");
    expect(payload).toMatchObject({
      errorType: "Runtime.CallbackHandlerDeprecated",
      errorMessage: expect.stringContaining("AWS Lambda has removed support for callback-based function handlers starting with Node.js 24."),
    });
    expect(log).toMatch(/^INIT_REPORT Init Duration: [\d.]+ ms\tPhase: init\tStatus: error\tError Type: Runtime.CallbackHandlerDeprecated$/m);
  });

  it.each([
    ["MalformedHandler", "Runtime.MalformedHandlerName"],
    ["MissingModule", "Runtime.ImportModuleError"],
    ["SyntaxError", "Runtime.UserCodeSyntaxError"],
    ["NoHandler", "Runtime.HandlerNotFound"],
  ])("fails %s with %s, on the managed runtime's client and on the project's custom one alike", async (name, errorType) => {
    const managed = await invokeLogged(lab, name);
    const custom = await invokeLogged(lab, `${name}-node`);
    for (const { functionError, payload } of [managed, custom]) {
      expect(functionError).toBe("Unhandled");
      expect(payload.errorType).toBe(errorType);
    }
  });
});

describe("qualifiers: $LATEST, the alias AutoPublishAlias publishes (with its provisioned concurrency), version 1", () => {
  const ARN = "arn:aws:lambda:us-east-1:123456789012:function";
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab({ template: join(FIXTURES, "aliases.yaml"), parameterOverrides: {} });
  });
  afterAll(async () => {
    await lab?.stop();
  });
  const client = () => labClient(lab, { maxAttempts: 1 });
  const invoke = async (FunctionName: string, Qualifier?: string) => {
    const out = await client().send(new InvokeCommand({ FunctionName, Qualifier, LogType: "Tail" }));
    const log = Buffer.from(out.LogResult ?? "", "base64").toString("utf8");
    return { executedVersion: out.ExecutedVersion, payload: JSON.parse(Buffer.from(out.Payload!).toString("utf8")), initDuration: /Init Duration/.test(log) };
  };

  it("serves $LATEST on demand and the alias from its provisioned environment, however the alias is named", async () => {
    expect(lab.lambda.environments("Aliased")).toMatchObject({ idle: 1, provisioned: 1 });
    const latest = await invoke("Aliased");
    expect(latest).toMatchObject({
      executedVersion: "$LATEST",
      initDuration: true,
      payload: { initType: "on-demand", version: "$LATEST", invokedFunctionArn: `${ARN}:Aliased` },
    });
    const provisionedPid = (await invoke("Aliased:live")).payload.pid;
    const aliasNames: [string, string | undefined][] = [
      ["Aliased:live", undefined],
      ["Aliased", "live"],
      [`${ARN}:Aliased:live`, undefined],
      [`${ARN}:Aliased`, "live"],
    ];
    for (const [name, qualifier] of aliasNames) {
      const viaAlias = await invoke(name, qualifier);
      expect(viaAlias).toMatchObject({
        executedVersion: "1",
        initDuration: false,
        payload: { initType: "provisioned-concurrency", version: "1", pid: provisionedPid },
      });
      expect(viaAlias.payload.invokedFunctionArn).toBe(`${ARN}:Aliased:live`);
    }
    expect(await invoke("Aliased", "$LATEST")).toMatchObject({
      executedVersion: "$LATEST",
      initDuration: false,
      payload: { initType: "on-demand", pid: latest.payload.pid },
    });
    expect(lab.lambda.environments("Aliased:live")).toMatchObject({ idle: 1, provisioned: 1 });
    expect(lab.lambda.environments("Aliased", "$LATEST")).toMatchObject({ idle: 1, provisioned: 0 });
  });

  it("serves version 1, the alias's, on demand: provisioned concurrency is the alias's", async () => {
    const version = await invoke("Aliased", "1");
    expect(version).toMatchObject({
      executedVersion: "1",
      initDuration: true,
      payload: { initType: "on-demand", version: "1", invokedFunctionArn: `${ARN}:Aliased:1` },
    });
    expect((await invoke("Aliased:live")).payload.initType).toBe("provisioned-concurrency");
  });

  it("sends the HTTP API's requests through the alias of a function that has one, $LATEST's otherwise", async () => {
    expect(await (await fetch(`${lab.apiUrl}/aliased`)).json()).toMatchObject({ initType: "provisioned-concurrency", version: "1" });
    expect(await (await fetch(`${lab.apiUrl}/plain`)).json()).toMatchObject({ initType: "on-demand", version: "$LATEST" });
  });

  it.each([
    ["Aliased", "nope", "Aliased:nope"],
    ["Aliased:nope", undefined, "Aliased:nope"],
    [`${ARN}:Aliased:nope`, undefined, "Aliased:nope"],
    ["Aliased", "2", "Aliased:2"],
    ["Plain", "live", "Plain:live"],
    ["Plain:1", undefined, "Plain:1"],
    ["Gone", "live", "Gone:live"],
  ])("answers %s with Qualifier %s: 404 ResourceNotFoundException, as Lambda words it", async (FunctionName, Qualifier, named) => {
    const notFound = {
      name: "ResourceNotFoundException",
      message: `Function not found: ${ARN}:${named}`,
      $metadata: expect.objectContaining({ httpStatusCode: 404 }),
    };
    await expect(client().send(new InvokeCommand({ FunctionName, Qualifier }))).rejects.toMatchObject(notFound);
    await expect(client().send(new GetFunctionConfigurationCommand({ FunctionName, Qualifier }))).rejects.toMatchObject(notFound);
  });

  it("refuses a Qualifier that differs from the one the name ends with, as Lambda does", async () => {
    await expect(client().send(new InvokeCommand({ FunctionName: "Aliased:live", Qualifier: "$LATEST" }))).rejects.toMatchObject({
      name: "InvalidParameterValueException",
      message: "The derived qualifier from the function name does not match the specified qualifier.",
    });
  });

  it("updates $LATEST only: its environments go, the alias keeps version 1's configuration and its provisioned environment", async () => {
    await expect(client().send(new UpdateFunctionConfigurationCommand({ FunctionName: "Aliased:live", Description: "x" }))).rejects.toMatchObject({
      name: "InvalidParameterValueException",
      message: "Current operation does not support versions other than $LATEST. Please set the version to $LATEST or do not set a version in your request.",
    });
    await forceColdStart(lab, "Aliased");
    expect(lab.lambda.environments("Aliased", "$LATEST").idle).toBe(0);
    expect(lab.lambda.environments("Aliased:live")).toMatchObject({ provisioned: 1 });
    const [latest, live] = await Promise.all(
      [undefined, "live"].map((Qualifier) => client().send(new GetFunctionConfigurationCommand({ FunctionName: "Aliased", Qualifier }))),
    );
    expect(latest).toMatchObject({ Version: "$LATEST", FunctionArn: `${ARN}:Aliased`, Description: expect.stringMatching(/^cold /) });
    expect(live).toMatchObject({ Version: "1", FunctionArn: `${ARN}:Aliased:live`, Description: "" });
    expect((await client().send(new GetFunctionCommand({ FunctionName: "Aliased", Qualifier: "live" }))).Configuration).toMatchObject({ Version: "1" });
    expect(await invoke("Aliased")).toMatchObject({ initDuration: true, payload: { initType: "on-demand" } });
    expect(await invoke("Aliased:live")).toMatchObject({ initDuration: false, payload: { initType: "provisioned-concurrency" } });
  });
});

describe("starting the lab", () => {
  it("serves every function when provisioned environments fail their INIT: each failure is its function's, whose alias runs on demand", async () => {
    const lab = await startLab({ template: join(FIXTURES, "provisioned-failure.yaml"), parameterOverrides: {} });
    try {
      const throws = "Runtime.InitError: RangeError: the cache size must be positive";
      expect(Object.fromEntries(lab.provisionFailures)).toEqual({
        ThrowsAtInit: throws,
        ExitsAtInit: "Runtime.ExitError: Runtime exited with error: exit status 2",
      });
      expect(provisionFailureLines(lab)).toContain(`provisioned concurrency of ThrowsAtInit failed to initialize, so its alias runs on demand: ${throws}`);
      const client = labClient(lab, { maxAttempts: 1 });
      const config = (FunctionName: string, Qualifier: string) => client.send(new GetProvisionedConcurrencyConfigCommand({ FunctionName, Qualifier }));
      expect(await config("ThrowsAtInit", "live")).toMatchObject({
        Status: "FAILED",
        StatusReason: throws,
        RequestedProvisionedConcurrentExecutions: 1,
        AllocatedProvisionedConcurrentExecutions: 0,
      });
      expect(await config("Echo", "live")).toMatchObject({ Status: "READY", AllocatedProvisionedConcurrentExecutions: 1 });
      expect((await config("Echo", "live")).StatusReason).toBeUndefined();
      await expect(config("Echo", "1")).rejects.toMatchObject({
        name: "ProvisionedConcurrencyConfigNotFoundException",
        $metadata: expect.objectContaining({ httpStatusCode: 404 }),
      });
      // The alias's invoke runs on demand, cold, and gets the INIT error; the HTTP API's (through the alias) too.
      const viaAlias = await invokeLogged(lab, "ThrowsAtInit:live");
      expect(viaAlias).toMatchObject({
        functionError: "Unhandled",
        payload: { errorType: "Runtime.InitError", errorMessage: "RangeError: the cache size must be positive" },
      });
      expect(viaAlias.log).toMatch(/^INIT_REPORT Init Duration: [\d.]+ ms\tPhase: init\tStatus: error\tError Type: Runtime.InitError$/m);
      expect((await fetch(`${lab.apiUrl}/throws-at-init`)).status).toBe(500);
      expect((await invokeLogged(lab, "Echo:live")).payload).toMatchObject({ initType: "provisioned-concurrency", version: "1" });
    } finally {
      await lab.stop();
    }
  });

  it("serves the functions it can and refuses each other one with its reason, which an invoke of it answers", async () => {
    const lab = await startLab({ template: join(FIXTURES, "refusals.yaml"), parameterOverrides: {} });
    try {
      expect(Object.fromEntries(lab.refused)).toEqual({
        PublishedLayer:
          "its layer arn:aws:lambda:us-east-1:094274105915:layer:AWSLambdaPowertoolsTypeScriptV2:41 is not the template's own (an AWS::Serverless::LayerVersion): the lab cannot fetch a published layer; put its content (the files of the layer's zip) in local-aws/layers/<its name>/ beside the template, and the lab gives it to the function",
        ProvisionedWithoutAlias:
          "its ProvisionedConcurrencyConfig has no alias to serve (SAM refuses it: To set ProvisionedConcurrencyConfig AutoPublishALias must be defined on the function)",
      });
      expect(Object.fromEntries(lab.placeholders)).toEqual({
        NamesAUserPool: expect.stringMatching(
          /^the lab cannot make the value of USER_POOL_ID \(!Ref UserPool: warpstart-placeholder\.userpool\.invalid\), so it gets a placeholder; /,
        ),
      });
      const client = labClient(lab, { maxAttempts: 1 });
      const echo = await client.send(new InvokeCommand({ FunctionName: "Echo", Payload: Buffer.from('{"by":"Echo"}') }));
      expect(echo.FunctionError).toBeUndefined();
      await expect(client.send(new InvokeCommand({ FunctionName: "PublishedLayer" }))).rejects.toMatchObject({
        name: "ResourceNotFoundException",
        message: expect.stringMatching(
          /^Function not found: arn:aws:lambda:us-east-1:\d+:function:PublishedLayer \(the lab does not serve it: its layer arn:aws:lambda:/,
        ),
      });
    } finally {
      await lab.stop();
    }
  });

  it("refuses to start when it can serve none of the functions, naming each one's reason", async () => {
    await expect(startLab({ template: join(FIXTURES, "refusals.yaml"), parameterOverrides: {}, only: ["ProvisionedWithoutAlias"] })).rejects.toThrow(
      "the lab can serve none of the functions: ProvisionedWithoutAlias: its ProvisionedConcurrencyConfig has no alias to serve",
    );
  });

  it("says which port is taken, and leaves nothing running", async () => {
    const busy: Server = createServer();
    const port = await listenOnLoopback(busy);
    const before = localAwsProcesses().length;
    try {
      await expect(startLab({ template: join(FIXTURES, "template.yaml"), parameterOverrides: {}, port })).rejects.toThrow(
        `port 127.0.0.1:${port} is already in use; stop whatever listens there or pick another port.`,
      );
      await eventually("the local AWS has ended with the failed start", () => localAwsProcesses().length === before, 5_000);
    } finally {
      busy.close();
    }
  });
});
