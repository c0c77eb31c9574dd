// The event a function gets without --event (emulation/events.mts): its app's own sample if it keeps
// one (events/<LogicalId>.json), else the `sam local generate-event`
// arguments for its first event source with the template's names filled in, the sample GET
// request for an HTTP API GET route, {} for a function nothing triggers, and what a user reads
// for a trigger the generator has no event for; the events made here for what another resource
// invokes (test/fixtures/sam-apps/invokers). No process starts here: the generator itself runs in
// test/integration/events.test.mts.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { readTemplate } from "../../core/template.mts";
import { eventNote, functionEvent, generateEventArgs, routeEvent } from "../../emulation/events.mts";

const FIXTURE = join(PACKAGE_ROOT, "test/fixtures/sam-apps/event-sources/template.yaml");
const functions = readTemplate(FIXTURE).functions;
const fn = (logicalId: string) => functions.find((candidate) => candidate.logicalId === logicalId)!;
const argsOf = (logicalId: string) => generateEventArgs(logicalId, fn(logicalId).eventSource!);

describe("the generate-event arguments for a function's first event source", () => {
  it.each([
    ["OnUpload", "a bucket's BucketName", ["s3", "put", "--bucket", "fixture-uploads"]],
    [
      "OnScratch",
      "an unnamed bucket's name as the lab makes it up, lower case, and a key its Filter lets through",
      ["s3", "put", "--bucket", "warpstart-lab-scratch", "--key", "scratch/test/key.json"],
    ],
    ["OnOrder", "the QueueName of the queue whose Arn it reads", ["sqs", "receive-message", "--queue-name", "fixture-orders"]],
    ["OnWrittenQueue", "the queue of an ARN a parameter gives", ["sqs", "receive-message", "--queue-name", "written-queue"]],
    ["OnNotice", "an unnamed topic's made-up name", ["sns", "notification", "--topic", "warpstart-lab-Notices"]],
    ["OnChange", "the TableName of the table whose stream it reads", ["dynamodb", "update", "--table", "fixture-table"]],
    ["OnClick", "no name: the generator takes no stream", ["kinesis", "get-records"]],
    ["Nightly", "the schedule's Name", ["cloudwatch", "scheduled-event", "--rule", "fixture-nightly"]],
    ["Hourly", "the made-up name of the rule SAM creates (<Function><Event>)", ["cloudwatch", "scheduled-event", "--rule", "warpstart-lab-HourlyTick"]],
    ["OnPlaced", "an EventBridge rule's RuleName", ["cloudwatch", "scheduled-event", "--rule", "fixture-placed"]],
    ["OnAnyEvent", "a CloudWatchEvent rule's made-up name", ["cloudwatch", "scheduled-event", "--rule", "warpstart-lab-OnAnyEventAny"]],
    [
      "GetOrder",
      "a REST API's method, path and resource",
      ["apigateway", "aws-proxy", "--method", "GET", "--path", "orders/{id}", "--resource", "/orders/{id}"],
    ],
    ["PostOrder", "an HTTP API route's method and path", ["apigateway", "http-api-proxy", "--method", "POST", "--path", "orders"]],
    ["CatchAll", "nothing for an HTTP API's catch-all route: the generator's request", ["apigateway", "http-api-proxy"]],
    ["TokenAuthorizer", "a REST API's Lambda authorizer: a TOKEN one by default", ["apigateway", "authorizer"]],
    ["RequestAuthorizer", "a REST API's REQUEST authorizer", ["apigateway", "request-authorizer"]],
    ["HttpAuthorizerV1", "an HTTP API's authorizer of payload format 1.0: the REST API's REQUEST event", ["apigateway", "request-authorizer"]],
  ])("%s: %s", (logicalId, _, args) => {
    expect(argsOf(logicalId)).toEqual(args);
  });

  it("none for an HTTP API GET route: its event is events/http-api.json made into the route's, with the query string asked for", () => {
    expect(argsOf("Status")).toBeNull();
    expect(functionEvent(fn("Status"), { calls: "2" })).toMatchObject({
      version: "2.0",
      routeKey: "GET /status",
      rawPath: "/status",
      rawQueryString: "calls=2",
      queryStringParameters: { calls: "2" },
      requestContext: { http: { method: "GET", path: "/status" }, routeKey: "GET /status" },
      isBase64Encoded: false,
    });
  });

  it("a route with path parameters is requested with a value for each, which the event's pathParameters give", () => {
    expect(routeEvent("/items/{id}/files/{key+}")).toMatchObject({
      routeKey: "GET /items/{id}/files/{key+}",
      rawPath: "/items/1/files/1",
      pathParameters: { id: "1", key: "1" },
      requestContext: { http: { path: "/items/1/files/1" }, routeKey: "GET /items/{id}/files/{key+}" },
    });
    expect(routeEvent("/status")).not.toHaveProperty("pathParameters");
  });

  it("a function nothing triggers gets {}, and the line that says so says how to give one", () => {
    expect(fn("Idle").eventSource).toBeNull();
    expect(functionEvent(fn("Idle"))).toEqual({});
    expect(eventNote(fn("Idle"))).toBe(`sent {} for want of an event (nothing in the template invokes it): ${giveOne("Idle")}`);
  });

  it("a trigger the generator has no event for gets {}, and the line names the function, its event, its type and what to do", () => {
    expect(functionEvent(fn("OnThing"))).toEqual({});
    expect(eventNote(fn("OnThing"))).toBe(
      "sent {} for want of an event (its first event source, Thing, is of type IoTRule, which SAM CLI's generate-event has no event for): " +
        giveOne("OnThing"),
    );
  });

  it("an API's authorizer is the trigger of the function its Auth names; one of payload format 2.0 gets {}, saying so", () => {
    expect(fn("HttpAuthorizerV1").eventSource).toMatchObject({ name: "AuthorizedHttpApi.V1", type: "HttpApiAuthorizer" });
    expect(functionEvent(fn("HttpAuthorizerV2"))).toEqual({});
    expect(eventNote(fn("HttpAuthorizerV2"))).toBe(
      "sent {} for want of an event (it is the authorizer AuthorizedHttpApi.V2, whose events are HTTP API authorizer events of payload format 2.0, which SAM CLI's generate-event has no event for): " +
        giveOne("HttpAuthorizerV2"),
    );
    // The generator's REQUEST event: its request a sample, said.
    expect(eventNote(fn("HttpAuthorizerV1"))).toBe(`its request (headers, query string, methodArn) is SAM CLI's sample: ${giveOne("HttpAuthorizerV1")}`);
  });
});

it.each([
  ["OnOrder", `its message body is SAM CLI's sample, "Hello from SQS!"`],
  ["OnNotice", `its message is SAM CLI's sample, "example message"`],
  ["OnClick", `its record's data is SAM CLI's sample, base64 of "Hello, this is a test 123."`],
  ["OnRefund", "its message body is SAM CLI's sample, changed as little as its FilterCriteria takes"],
])("%s, a queue's, topic's or stream's, is said to get SAM CLI's sample message", (logicalId, line) => {
  expect(eventNote(fn(logicalId))).toBe(`${line}: ${giveOne(logicalId)}`);
});

it("a request with a body (not a GET) is said to carry SAM CLI's sample body", () => {
  expect(eventNote(fn("PostOrder"))).toBe(`its body is SAM CLI's sample request body: ${giveOne("PostOrder")}`);
  expect(eventNote(fn("GetOrder"))).toBeNull();
});

describe("what else of the template invokes a function", () => {
  it.each([
    ["OwnUrl", "its own FunctionUrlConfig"],
    ["Callback", "an AWS::Lambda::Url"],
  ])("%s, invoked through %s, gets the request its URL sends", (logicalId) => {
    expect(fn(logicalId).eventSource).toMatchObject({ type: "FunctionUrl" });
    expect(functionEvent(fn(logicalId))).toMatchObject({
      version: "2.0",
      routeKey: "$default",
      rawPath: "/",
      headers: { host: expect.stringMatching(/^[0-9a-z]{32}\.lambda-url\.us-east-1\.on\.aws$/) },
      requestContext: { domainName: expect.stringMatching(/\.lambda-url\.us-east-1\.on\.aws$/), http: { method: "GET", path: "/" } },
    });
    expect(eventNote(fn(logicalId))).toBeNull();
  });

  it("a Scheduler schedule's target gets the schedule's Input", () => {
    expect(fn("Digest").eventSource).toMatchObject({ name: "DigestSchedule", type: "ScheduleV2" });
    expect(functionEvent(fn("Digest"))).toEqual({ digest: "daily" });
    expect(eventNote(fn("Digest"))).toBeNull();
  });

  it("another function's PreTraffic hook gets what CodeDeploy sends it: the deployment and the hook's execution", () => {
    expect(fn("PreTrafficCheck").eventSource).toMatchObject({ name: "Gradual.PreTraffic", type: "CodeDeployHook" });
    expect(functionEvent(fn("PreTrafficCheck"))).toEqual({
      DeploymentId: expect.stringMatching(/^d-[0-9A-Z]{9}$/),
      LifecycleEventHookExecutionId: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/),
    });
    expect(eventNote(fn("PreTrafficCheck"))).toBeNull();
  });

  it("a user pool's trigger gets {}, and the line names the pool and the trigger", () => {
    expect(functionEvent(fn("SmsSender"))).toEqual({});
    expect(eventNote(fn("SmsSender"))).toBe(
      `sent {} for want of an event (it is the CustomSMSSender trigger of the user pool Pool, whose events SAM CLI's generate-event has none of): ${giveOne("SmsSender")}`,
    );
  });
});

/** What every line about a function's event says to do. */
const giveOne = (logicalId: string) =>
  `give one in events/${logicalId}.json beside the template (the doctor, npx warpstart invoke and the bench send it), or to one invoke with --event FILE`;

describe("the event of a function another resource invokes (no Events entry names it)", () => {
  const invokers = readTemplate(join(PACKAGE_ROOT, "test/fixtures/sam-apps/invokers/template.yaml")).functions;
  const invoked = (logicalId: string) => invokers.find((candidate) => candidate.logicalId === logicalId)!;
  const STACK_ID = "arn:aws:cloudformation:us-east-1:123456789012:stack/warpstart-lab/00000000-0000-0000-0000-000000000000";

  it.each([
    ["OnConnect", "$connect", "CONNECT"],
    ["OnMessage", "sendmessage", "MESSAGE"],
  ])(
    "%s: API Gateway's WebSocket event of its route (%s, %s), from the route whose integration's IntegrationUri names it",
    (logicalId, routeKey, eventType) => {
      expect(invoked(logicalId).eventSource).toMatchObject({ type: "WebSocket", properties: { RouteKey: routeKey, Stage: "Prod" } });
      const event = functionEvent(invoked(logicalId));
      expect(event).toMatchObject({
        requestContext: {
          routeKey,
          eventType,
          stage: "Prod",
          messageDirection: "IN",
          connectionId: expect.any(String),
          domainName: expect.stringMatching(/^[a-z0-9]{10}\.execute-api\.us-east-1\.amazonaws\.com$/),
        },
        isBase64Encoded: false,
      });
      // The same event every time: the bench sends it every round, the build cache keys on it.
      expect(functionEvent(invoked(logicalId))).toEqual(event);
    },
  );

  it("a WebSocket connection's event carries the handshake's headers; a message's, a body that selects its route, said to be a placeholder", () => {
    expect(functionEvent(invoked("OnConnect"))).toMatchObject({ headers: { "Sec-WebSocket-Version": "13" } });
    expect(functionEvent(invoked("OnConnect"))).not.toHaveProperty("body");
    expect(eventNote(invoked("OnConnect"))).toBeNull();
    const message = functionEvent(invoked("OnMessage"));
    expect(message).not.toHaveProperty("headers");
    expect(JSON.parse(String(message.body))).toEqual({ action: "sendmessage", data: "a message from the warpstart lab" });
    expect(eventNote(invoked("OnMessage"))).toBe(`its body is a placeholder message, ${message.body}: ${giveOne("OnMessage")}`);
  });

  it("a REST API of CloudFormation's own resources: its Method's route, the path of its Resource chain; its TOKEN Authorizer's event", () => {
    expect(invoked("OnRawOrder").eventSource).toMatchObject({ name: "RawApi.OrderGet", type: "Api", properties: { Method: "GET", Path: "/orders/{id}" } });
    expect(generateEventArgs("OnRawOrder", invoked("OnRawOrder").eventSource!)).toEqual([
      "apigateway",
      "aws-proxy",
      "--method",
      "GET",
      "--path",
      "orders/{id}",
      "--resource",
      "/orders/{id}",
    ]);
    expect(invoked("OnRawToken").eventSource).toMatchObject({
      name: "RawApi.RawTokenCheck",
      type: "ApiAuthorizer",
      properties: { FunctionPayloadType: "TOKEN" },
    });
    expect(generateEventArgs("OnRawToken", invoked("OnRawToken").eventSource!)).toEqual(["apigateway", "authorizer"]);
    // The generator's token allows nothing a real authorizer checks: said, with how to give one.
    expect(eventNote(invoked("OnRawToken"))).toBe(
      `its authorizationToken is SAM CLI's sample token, "incoming-client-token", and its methodArn the sample's: ${giveOne("OnRawToken")}`,
    );
  });

  it("a WebSocket API's REQUEST authorizer: what API Gateway sends it on $connect, the handshake's headers and the route's ARN", () => {
    expect(invoked("OnAuthorize").eventSource).toMatchObject({ name: "ChatApi.ChatAuthorizer", type: "WebSocketAuthorizer" });
    const event = functionEvent(invoked("OnAuthorize"));
    expect(event).toMatchObject({
      type: "REQUEST",
      methodArn: expect.stringMatching(/^arn:aws:execute-api:us-east-1:123456789012:[a-z0-9]{10}\/Prod\/\$connect$/),
      headers: { "X-Forwarded-Proto": "https", "Sec-WebSocket-Version": "13" },
      requestContext: { routeKey: "$connect", eventType: "CONNECT", stage: "Prod" },
    });
    // The API the route's own event comes from.
    expect((event.requestContext as { apiId: string }).apiId).toBe((functionEvent(invoked("OnConnect")).requestContext as { apiId: string }).apiId);
    expect(eventNote(invoked("OnAuthorize"))).toBeNull();
  });

  it.each([
    ["OnItem", "an HTTP route of payload format 2.0: the generator's HTTP API request of it", null, { Method: "GET", Path: "/items/{id}" }],
    [
      "OnLegacy",
      "a route of payload format 1.0: the REST API's request",
      ["apigateway", "aws-proxy", "--method", "POST", "--path", "legacy", "--resource", "/legacy"],
      {},
    ],
    ["OnQuick", "a quick-create API's Target: its $default route", ["apigateway", "http-api-proxy"], {}],
  ])("%s: %s", (logicalId, _, args, properties) => {
    const source = invoked(logicalId).eventSource!;
    expect(source).toMatchObject({ type: "HttpApi", properties });
    expect(generateEventArgs(logicalId, source)).toEqual(args);
  });

  it("a custom resource's function gets the Create request CloudFormation sends, its properties as strings, a Ref as the name, its ResponseURL the local AWS's", () => {
    expect(functionEvent(invoked("OnSetup"))).toEqual({
      RequestType: "Create",
      ServiceToken: "arn:aws:lambda:us-east-1:123456789012:function:OnSetup",
      ResponseURL: expect.stringMatching(
        /^https:\/\/127\.0\.0\.1\/cloudformation-custom-resource-response\/arn%3Aaws%3Acloudformation%3A.+%7CSetup%7C[0-9a-f-]{36}$/,
      ),
      StackId: STACK_ID,
      RequestId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      LogicalResourceId: "Setup",
      ResourceType: "Custom::Setup",
      ResourceProperties: {
        ServiceToken: "arn:aws:lambda:us-east-1:123456789012:function:OnSetup",
        Bucket: "fixture-invokers-uploads",
        Retries: "3",
        Seed: { Enabled: "true", Items: ["a", "b"] },
        TopicArn: "warpstart-lab-placeholder",
        Label: "warpstart-lab-setup",
      },
    });
    expect(eventNote(invoked("OnSetup"))).toBe(
      `its ResourceProperties TopicArn is a placeholder (warpstart-lab-placeholder): the lab makes the event before it creates what it names: ${giveOne("OnSetup")}`,
    );
  });

  it.each([
    ["OnCharge", "Orders", "Charge", "a Parallel branch of DefinitionUri's file, its Resource a DefinitionSubstitutions variable"],
    ["OnShip", "Shipping", "Ship", "a lambda:invoke whose FunctionName an Fn::Sub of DefinitionString names"],
  ])("%s, the task of %s.%s (%s), gets {}, and the line says why and how to give one", (logicalId, machine, state) => {
    expect(invoked(logicalId).eventSource).toMatchObject({ type: "StepFunctionsTask", name: `${machine}.${state}` });
    expect(functionEvent(invoked(logicalId))).toEqual({});
    expect(eventNote(invoked(logicalId))).toBe(
      `sent {} for want of an event (it is the task of state ${state} of the state machine ${machine}, whose input is that state's input, which the template does not fix): ${giveOne(logicalId)}`,
    );
  });

  it("a REST route its API's Lambda authorizer protects is said to carry a placeholder of what the authorizer adds; one whose Auth says NONE is not", () => {
    expect(eventNote(invoked("OnSecret"))).toBe(
      `its requestContext.authorizer is a placeholder of what its authorizer TokenCheck adds (principalId warpstart-lab-user, no context): ${giveOne("OnSecret")}`,
    );
    expect(eventNote(invoked("OnPublic"))).toBeNull();
  });
});

describe("an app's own sample event (events/<LogicalId>.json beside its template)", () => {
  let app: string;
  beforeEach(() => {
    app = mkdtempSync(join(tmpdir(), "warpstart-sample-events-"));
    writeFileSync(
      join(app, "template.yaml"),
      [
        "Transform: AWS::Serverless-2016-10-31",
        "Resources:",
        "  Orders:",
        "    Type: AWS::Serverless::Function",
        "    Properties: { Handler: index.handler, Runtime: nodejs22.x, Events: { Post: { Type: HttpApi, Properties: { Path: /orders, Method: POST } } } }",
        "  Queue:",
        "    Type: AWS::Serverless::Function",
        "    Properties: { Handler: index.handler, Runtime: nodejs22.x }",
      ].join("\n"),
    );
    mkdirSync(join(app, "events"));
  });
  afterEach(() => rmSync(app, { recursive: true, force: true }));

  it("is the event the function gets, in the source template and in the one sam build writes, with the query string asked for", () => {
    const sample = { version: "2.0", routeKey: "POST /orders", rawQueryString: "", body: '{"customerId":"c-1"}' };
    writeFileSync(join(app, "events/Orders.json"), JSON.stringify(sample));
    mkdirSync(join(app, ".aws-sam/build"), { recursive: true });
    writeFileSync(join(app, ".aws-sam/build/template.yaml"), readFileSync(join(app, "template.yaml")));
    for (const file of [join(app, "template.yaml"), join(app, ".aws-sam/build/template.yaml")]) {
      const [orders, queue] = readTemplate(file).functions;
      expect(orders!.sampleEvent).toBe(join(app, "events/Orders.json"));
      expect(functionEvent(orders!)).toEqual(sample);
      expect(functionEvent(orders!, { calls: "2" })).toEqual({ ...sample, rawQueryString: "calls=2", queryStringParameters: { calls: "2" } });
      expect(queue!.sampleEvent).toBeNull();
    }
  });

  it("that is not JSON is an error naming the function and the file", () => {
    writeFileSync(join(app, "events/Orders.json"), "{ body: ");
    const [orders] = readTemplate(join(app, "template.yaml")).functions;
    expect(() => functionEvent(orders!)).toThrow(
      new RegExp(`^Orders's sample event ${join(app, "events/Orders.json").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is not JSON: `),
    );
  });
});
