// The events functions get without --event, made by the real `sam local generate-event` for the
// fixture app's triggers: each shaped as its service sends it, with the template's names in it,
// kept under .lab/events/ once made. What `npx warpstart invoke` says of a function that gets {}:
// test/integration/invokers.test.mts.
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT, STATE_DIR } from "../../core/paths.mts";
import { readTemplate } from "../../core/template.mts";
import { functionEvent } from "../../emulation/events.mts";

const FIXTURE = join(PACKAGE_ROOT, "test/fixtures/sam-apps/event-sources/template.yaml");
const GENERATED_DIR = join(STATE_DIR, "events");
const functions = readTemplate(FIXTURE).functions;
const fn = (logicalId: string) => functions.find((candidate) => candidate.logicalId === logicalId)!;

// The generator itself runs, not a copy kept by an earlier run.
beforeAll(() => rmSync(GENERATED_DIR, { recursive: true, force: true }));

it.each([
  ["OnUpload", "an S3 put of an object in the template's bucket", {}, { Records: [{ eventSource: "aws:s3", s3: { bucket: { name: "fixture-uploads" } } }] }],
  [
    "OnOrder",
    "an SQS message from the template's queue",
    {},
    { Records: [{ eventSource: "aws:sqs", eventSourceARN: "arn:aws:sqs:us-east-1:123456789012:fixture-orders" }] },
  ],
  [
    "PostOrder",
    "an HTTP API request of the route, with the query string asked for",
    { calls: "2" },
    {
      version: "2.0",
      routeKey: "POST /orders",
      rawPath: "/orders",
      rawQueryString: "calls=2",
      queryStringParameters: { calls: "2" },
      requestContext: { routeKey: "POST /orders", http: { method: "POST", path: "/orders" } },
      // As API Gateway sends a JSON body: text, not the generator's base64.
      body: '{"test":"body"}',
      isBase64Encoded: false,
    },
  ],
  [
    "GetOrder",
    "a REST API request of the resource, its path parameter given a value, with no query string",
    {},
    {
      httpMethod: "GET",
      resource: "/orders/{id}",
      path: "/orders/1",
      pathParameters: { id: "1" },
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      body: null,
      isBase64Encoded: false,
    },
  ],
  [
    "TokenAuthorizer",
    "a TOKEN authorizer's event, for the API whose Auth names it",
    {},
    { type: "TOKEN", methodArn: expect.stringContaining("arn:aws:execute-api:") },
  ],
  [
    "Nightly",
    "a scheduled event of the template's rule",
    {},
    { "detail-type": "Scheduled Event", source: "aws.events", resources: ["arn:aws:events:us-east-1:123456789012:rule/fixture-nightly"] },
  ],
  [
    "OnChange",
    "DynamoDB stream records of the template's table, keyed as it is",
    {},
    // The generator's records (an INSERT, a MODIFY and a REMOVE), keyed by the table's own key, not the generator's Id.
    {
      Records: [
        ...["INSERT", "MODIFY"].map((eventName) =>
          expect.objectContaining({
            eventName,
            eventSource: "aws:dynamodb",
            eventSourceARN: expect.stringMatching(/:table\/fixture-table\/stream\//),
            dynamodb: expect.objectContaining({ Keys: { id: { S: "101" } }, NewImage: { id: { S: "101" }, Message: { S: expect.any(String) } } }),
          }),
        ),
        expect.objectContaining({ eventName: "REMOVE", dynamodb: expect.objectContaining({ Keys: { id: { S: "101" } } }) }),
      ],
    },
  ],
  [
    "OnInsert",
    "the records its FilterCriteria passes: the generator's INSERT alone",
    {},
    { Records: [expect.objectContaining({ eventName: "INSERT", eventSource: "aws:dynamodb" })] },
  ],
  [
    "OnInStock",
    "a record its FilterCriteria passes where the generator made none: the first, changed as little as that takes",
    {},
    {
      Records: [
        expect.objectContaining({
          eventName: "INSERT",
          dynamodb: expect.objectContaining({
            Keys: { id: { S: "101" } },
            NewImage: { id: { S: "101" }, Message: { S: expect.any(String) }, status: { S: "IN STOCK" } },
          }),
        }),
      ],
    },
  ],
])("%s gets %s", (logicalId, _, query, shape) => {
  expect(functionEvent(fn(logicalId), query)).toMatchObject(shape);
});

it("OnRefund gets an SQS message whose JSON body its FilterCriteria passes", () => {
  const { Records: records } = functionEvent(fn("OnRefund")) as { Records: { body: string; eventSource: string }[] };
  expect(records).toEqual([expect.objectContaining({ eventSource: "aws:sqs" })]);
  expect(JSON.parse(records[0]!.body)).toEqual({ kind: "refund", amount: 1 });
});

it("keeps each event it made under .lab/events/ and sends that copy from then on", () => {
  rmSync(GENERATED_DIR, { recursive: true, force: true });
  // Its key within the event's Filter (prefix scratch/, suffix .json), as S3 sends it.
  expect(functionEvent(fn("OnScratch"))).toMatchObject({
    Records: [{ s3: { bucket: { name: "warpstart-lab-scratch" }, object: { key: "scratch/test/key.json" } } }],
  });
  const kept = readdirSync(GENERATED_DIR);
  expect(kept).toEqual([expect.stringMatching(/^[0-9a-f]+\.json$/)]);
  const copy = join(GENERATED_DIR, kept[0]!);
  writeFileSync(copy, JSON.stringify({ kept: true }));
  expect(functionEvent(fn("OnScratch"))).toEqual({ kept: true });
  rmSync(copy); // the next run makes it again
});
