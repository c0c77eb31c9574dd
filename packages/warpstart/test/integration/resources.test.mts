// A template's resources made in the local AWS by moto's own CloudFormation, as a deploy would
// make them: each checked in its service, the names CloudFormation makes up, a function's
// Environment evaluated with their Ref and Fn::GetAtt, parameters with their defaults and an
// override, a function URL's FunctionUrl, and what moto cannot create named in one line while the rest
// is created.
import { join } from "node:path";
import { PACKAGE_ROOT, VENV_BIN } from "../../core/paths.mts";
import { execOwned } from "../../core/processes.mts";
import { readTemplate } from "../../core/template.mts";
import { type LocalAws, startLocalAws } from "../../emulation/local-aws/local-aws.mts";
import { type CreatedResources, createResources, functionUrlDomain } from "../../emulation/local-aws/resources.mts";

const FIXTURE = join(PACKAGE_ROOT, "test/fixtures/sam-apps/resources/template.yaml");
const template = readTemplate(FIXTURE, { Prefix: "overridden" });

let aws: LocalAws;
let created: CreatedResources;
beforeAll(async () => {
  aws = await startLocalAws();
  created = await createResources(template, aws);
});
afterAll(async () => {
  await aws?.stop();
});

type Call = [service: string, operation: string, params: Record<string, unknown>];

/** Each call's answer from the local AWS, through boto3 (the project's Node tree has no SQS, SNS, Kinesis, ... clients). */
async function call<Calls extends Call[]>(...calls: Calls): Promise<{ [Index in keyof Calls]: Record<string, unknown> }> {
  const request = { endpoint: aws.endpoint, caFile: aws.caFile, region: "us-east-1", calls };
  const { stdout } = await execOwned(join(VENV_BIN, "python"), [join(PACKAGE_ROOT, "test/support/aws-calls.py"), JSON.stringify(request)]);
  return JSON.parse(stdout);
}

const ref = (logicalId: string) => created.attributes[logicalId]!.Ref!;
const generated = (logicalId: string) => new RegExp(`^warpstart-lab-${logicalId}-[A-Z0-9]{12}$`);

it("creates each resource in its service, with the name CloudFormation makes up for one given none (a table's or bucket's without its random part)", async () => {
  const queueName = created.attributes.Jobs!.QueueName!;
  const [queue, queueAttributes, subscriptions, bus, targets, stream, orders, items, bucket, parameter, logGroups, workflow, url] = await call(
    ["sqs", "get_queue_url", { QueueName: queueName }],
    ["sqs", "get_queue_attributes", { QueueUrl: ref("Jobs"), AttributeNames: ["VisibilityTimeout"] }],
    ["sns", "list_subscriptions_by_topic", { TopicArn: ref("Alerts") }],
    ["events", "describe_event_bus", { Name: ref("Bus") }],
    ["events", "list_targets_by_rule", { Rule: ref("JobsRule"), EventBusName: ref("Bus") }],
    ["kinesis", "describe_stream_summary", { StreamName: ref("Clicks") }],
    ["dynamodb", "describe_table", { TableName: ref("Orders") }],
    ["dynamodb", "describe_table", { TableName: ref("Items") }],
    ["s3", "head_bucket", { Bucket: ref("Uploads") }],
    ["ssm", "get_parameter", { Name: "/overridden/dev/settings" }],
    ["logs", "describe_log_groups", { logGroupNamePrefix: ref("Audit") }],
    ["stepfunctions", "describe_state_machine", { stateMachineArn: ref("Workflow") }],
    ["ssm", "get_parameter", { Name: "notifier-url" }],
  );
  expect(queueName).toMatch(generated("Jobs"));
  // moto's GetQueueUrl answers with the host it was asked at; the path is the account and the queue's name, as in the Ref.
  expect(ref("Jobs")).toBe(`https://sqs.us-east-1.amazonaws.com/123456789012/${queueName}`);
  expect(queue.QueueUrl).toBe(`${aws.endpoint}/123456789012/${queueName}`);
  expect(queueAttributes).toEqual({ Attributes: { VisibilityTimeout: "30" } });
  // The AWS::SNS::Subscription, made as its topic's Subscription.
  expect(subscriptions.Subscriptions).toEqual([expect.objectContaining({ Protocol: "sqs", Endpoint: created.attributes.Jobs!.Arn })]);
  expect(bus).toMatchObject({ Name: "warpstart-lab-dev-bus", Arn: created.attributes.Bus!.Arn });
  expect(targets.Targets).toEqual([{ Id: "jobs", Arn: created.attributes.Jobs!.Arn }]);
  expect(ref("Clicks")).toMatch(generated("Clicks"));
  expect(stream.StreamDescriptionSummary).toMatchObject({ StreamStatus: "ACTIVE", OpenShardCount: 1 });
  // A table or bucket given no name gets CloudFormation's made-up name without its random part: the one a generated event names.
  expect(ref("Orders")).toBe("warpstart-lab-Orders");
  expect(orders.Table).toMatchObject({ TableStatus: "ACTIVE", KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }] });
  // The AWS::Serverless::SimpleTable, as SAM translates it.
  expect(items.Table).toMatchObject({
    TableName: "warpstart-lab-Items",
    KeySchema: [{ AttributeName: "sku", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "sku", AttributeType: "S" }],
    BillingModeSummary: { BillingMode: "PAY_PER_REQUEST" },
  });
  expect(ref("Uploads")).toBe("warpstart-lab-uploads");
  expect(bucket).not.toHaveProperty("error");
  expect(parameter.Parameter).toMatchObject({ Value: `table=${ref("Orders")};queue=${queueName};secret=${ref("Credentials")}` });
  expect(logGroups.logGroups).toEqual([expect.objectContaining({ logGroupName: ref("Audit"), retentionInDays: 7 })]);
  // The AWS::Serverless::StateMachine, its substitution the ARN of the function the lab serves.
  expect(JSON.parse(String(workflow.definition))).toEqual({
    StartAt: "Read",
    States: { Read: { Type: "Task", Resource: "arn:aws:lambda:us-east-1:123456789012:function:Reader", End: true } },
  });
  // An AWS::Lambda::Url's FunctionUrl, on the domain the events made for it name (emulation/events.mts).
  expect(url.Parameter).toMatchObject({ Value: `https://${functionUrlDomain("NotifierUrl")}/` });
  expect(functionUrlDomain("NotifierUrl")).toMatch(/^[a-z0-9]{32}\.lambda-url\.us-east-1\.on\.aws$/);
});

it("generates a secret as GenerateSecretString says, its Ref the ARN", async () => {
  const [secret] = await call(["secretsmanager", "get_secret_value", { SecretId: ref("Credentials") }]);
  expect(secret.Name).toMatch(generated("Credentials"));
  expect(ref("Credentials")).toMatch(/^arn:aws:secretsmanager:us-east-1:123456789012:secret:warpstart-lab-Credentials-[A-Z0-9]{12}-\w{6}$/);
  expect(JSON.parse(String(secret.SecretString))).toEqual({ username: "admin", password: expect.stringMatching(/^[A-Za-z0-9]{24}$/) });
});

it("evaluates a function's Environment with the resources' Ref and Fn::GetAtt, parameters and the function's own ARN", () => {
  const queueName = created.attributes.Jobs!.QueueName!;
  expect(template.resolve(template.functions[0]!.environment, created.attributes)).toEqual({
    OWN_URL: `https://${functionUrlDomain("ReaderUrl")}/`,
    QUEUE_URL: `https://sqs.us-east-1.amazonaws.com/123456789012/${queueName}`,
    QUEUE_ARN: `arn:aws:sqs:us-east-1:123456789012:${queueName}`,
    TOPIC_ARN: expect.stringMatching(/^arn:aws:sns:us-east-1:123456789012:warpstart-lab-Alerts-[A-Z0-9]{12}$/),
    BUS_NAME: "warpstart-lab-dev-bus",
    BUS_ARN: "arn:aws:events:us-east-1:123456789012:event-bus/warpstart-lab-dev-bus",
    STREAM_NAME: ref("Clicks"),
    STREAM_ARN: `arn:aws:kinesis:us-east-1:123456789012:stream/${ref("Clicks")}`,
    TABLE_NAME: ref("Orders"),
    TABLE_ARN: `arn:aws:dynamodb:us-east-1:123456789012:table/${ref("Orders")}`,
    ITEMS_TABLE: ref("Items"),
    BUCKET_NAME: ref("Uploads"),
    SECRET_ARN: ref("Credentials"),
    PARAMETER_NAME: "/overridden/dev/settings",
    LOG_GROUP: ref("Audit"),
    STATE_MACHINE_ARN: expect.stringMatching(/^arn:aws:states:us-east-1:123456789012:stateMachine:warpstart-lab-Workflow-[A-Z0-9]{12}$/),
    WORKFLOW_NAME: expect.stringMatching(generated("Workflow")),
    SELF_ARN: "arn:aws:lambda:us-east-1:123456789012:function:Reader",
    SUMMARY: `dev/overridden/${ref("Orders")}/${queueName}`,
    JOINED: `${ref("Uploads")},${ref("Clicks")}`,
  });
});

it("creates no resource whose condition does not hold", async () => {
  const [queues] = await call(["sqs", "list_queues", { QueueNamePrefix: "warpstart-lab-ProdOnly" }]);
  expect(queues).toEqual({});
  expect(created.attributes).not.toHaveProperty("ProdOnly");
});

it("names in one line, with moto's reason, each resource it could not create and each that needs one, and creates the rest", () => {
  expect(created.notCreated).toBe(
    "The lab's local AWS did not create GraphApi (AWS::AppSync::GraphQLApi: moto's CloudFormation does not implement this type), " +
      "GraphUrl (AWS::SSM::Parameter: needs GraphApi, not created), " +
      "Unkeyed (AWS::DynamoDB::Table: TypeError: DynamoDBBackend.create_table() missing 2 required positional arguments: 'schema' and 'attr'): " +
      "a function that calls them fails in the lab.",
  );
  expect(Object.keys(created.attributes).sort()).toEqual(
    [
      "Alerts",
      "Audit",
      "Bus",
      "Clicks",
      "Credentials",
      "Items",
      "Jobs",
      "JobsRule",
      "Notifier",
      "NotifierUrl",
      "NotifierUrlParam",
      "Orders",
      "Reader",
      "ReaderUrl",
      "Settings",
      "Uploads",
      "Workflow",
    ].sort(),
  );
});
