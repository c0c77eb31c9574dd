// The event a function gets without --event (lab/events.mts): its app's own sample if it keeps
// one (events/<LogicalId>.json), else the `sam local generate-event`
// arguments for its first event source with the template's names filled in, the sample GET
// request for an HTTP API GET route, {} for a function nothing triggers, and what a user reads
// for a trigger the generator has no event for. No process starts here: the generator itself
// runs in test/integration/events.test.mts.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { readTemplate } from "../../core/template.mts";
import { functionEvent, generateEventArgs, routeEvent } from "../../emulation/events.mts";

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

  it("a function nothing triggers gets {}", () => {
    expect(fn("Idle").eventSource).toBeNull();
    expect(functionEvent(fn("Idle"))).toEqual({});
  });

  it("a trigger the generator has no event for is an error naming the function, its event, its type and what to do", () => {
    expect(() => functionEvent(fn("OnThing"))).toThrow(
      "OnThing: its first event source, Thing, is of type IoTRule, which SAM CLI's generate-event has no event for: " +
        "give the event as a JSON file, npx warpstart invoke OnThing --event <file>",
    );
  });

  it("an API's authorizer is the trigger of the function its Auth names, and one of payload format 2.0 an error saying so", () => {
    expect(fn("HttpAuthorizerV1").eventSource).toMatchObject({ name: "AuthorizedHttpApi.V1", type: "HttpApiAuthorizer" });
    expect(() => functionEvent(fn("HttpAuthorizerV2"))).toThrow(
      "HttpAuthorizerV2: it is the authorizer AuthorizedHttpApi.V2, whose events are HTTP API authorizer events of payload format 2.0, which SAM CLI's generate-event has no event for: " +
        "give the event as a JSON file, npx warpstart invoke HttpAuthorizerV2 --event <file>",
    );
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
