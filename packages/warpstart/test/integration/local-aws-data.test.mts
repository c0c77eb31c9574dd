// What the local AWS holds before a function's INIT: what its generated event names (the bucket
// and object of an S3 event, under a name a parameter gives; a DynamoDB stream's item), what the
// app's seed folder gives (local-aws/: an object, an item, a parameter, a secret, an export's
// value); and each seed file the lab cannot use, or parameter without a value, named in one line
// while the rest is loaded.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PACKAGE_ROOT, VENV_BIN } from "../../core/paths.mts";
import { execOwned } from "../../core/processes.mts";
import { readTemplate } from "../../core/template.mts";
import { functionEvent } from "../../emulation/events.mts";
import { type LocalAws, startLocalAws } from "../../emulation/local-aws/local-aws.mts";
import { LOOPBACK } from "../../emulation/local-aws/network.mts";
import { createResources } from "../../emulation/local-aws/resources.mts";
import { type Lab, startLab } from "../../lab/lab.mts";
import { invokeLogged } from "../support/lab.mts";

const FIXTURE = join(PACKAGE_ROOT, "test/fixtures/sam-apps/as-lambda");
const WORLD = ["WorldOnUpload", "WorldOnOrder", "WorldReadsSeeds"];
// As --parameter-overrides or samconfig.toml gives it: the bucket has no name without it.
const OVERRIDES = { WorldUploadsName: "world-uploads" };

describe("a lab of an app whose functions read what their events name and what the user seeds", () => {
  // Served from its sources (CodeUri: the app's folder), copied without any build of it another test makes there.
  const dir = mkdtempSync(join(tmpdir(), "warpstart-as-lambda-"));
  cpSync(FIXTURE, dir, { recursive: true, filter: (path) => !path.includes(".aws-sam") });
  const APP = join(dir, "template.yaml");
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab({ template: APP, parameterOverrides: OVERRIDES, only: WORLD, fidelity: { network: LOOPBACK, codeLoading: "none" } });
  });
  afterAll(async () => {
    await lab?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const eventOf = (logicalId: string) => functionEvent(readTemplate(APP, OVERRIDES).functions.find((fn) => fn.logicalId === logicalId)!);

  it("holds the bucket and the object the generated S3 event names, the bucket under the name the parameter gives", async () => {
    const { functionError, payload } = await invokeLogged(lab, "WorldOnUpload", eventOf("WorldOnUpload"));
    expect(functionError).toBeUndefined();
    expect(payload).toEqual({ bucket: "world-uploads", key: "test/key", bytes: expect.any(Number) });
    expect(payload.bytes).toBeGreaterThan(0);
  });

  it("holds the item the generated DynamoDB stream event names, as its last image, keyed by the table's own key, in the table the template names not", async () => {
    const event = eventOf("WorldOnOrder") as { Records: { eventName: string; dynamodb: { Keys: object; NewImage?: object } }[] };
    const { functionError, payload } = await invokeLogged(lab, "WorldOnOrder", event);
    expect(functionError).toBeUndefined();
    const last = event.Records.findLast((record) => record.dynamodb.NewImage)!;
    expect(last.eventName).toBe("MODIFY"); // SAM's event: INSERT, MODIFY, then REMOVE, which the lab leaves out
    expect(last.dynamodb.Keys).toEqual({ orderId: { S: "101" } }); // the table's key, not the generator's Id
    expect(payload.item).toEqual({ ...last.dynamodb.NewImage, ...last.dynamodb.Keys });
  });

  it("loads the seed folder before any INIT: an object, an item, a parameter, a secret, and an export's value", async () => {
    const { functionError, payload } = await invokeLogged(lab, "WorldReadsSeeds");
    expect(functionError).toBeUndefined();
    expect(payload).toEqual({
      config: { greeting: "hello from the seed folder" },
      setting: { id: { S: "limits" }, maxItems: { N: "25" }, tiers: { L: [{ S: "free" }, { S: "pro" }] }, ratio: { N: "0.5" } },
      flag: "on",
      secret: { key: "local-only" },
      sharedTopic: "arn:aws:sns:us-east-1:123456789012:world-shared",
    });
    expect(lab.resources.problems).toEqual([]);
  });
});

describe("an app whose seed folder and parameters the lab cannot all use", () => {
  let dir: string;
  let aws: LocalAws;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "warpstart-seeds-"));
    const files: Record<string, string> = {
      "template.yaml": `Parameters:
  Stage: { Type: String }
Resources:
  Docs: { Type: AWS::S3::Bucket }
  Staged: { Type: AWS::S3::Bucket, Properties: { BucketName: !Sub "docs-\${Stage}" } }
  Items:
    Type: AWS::DynamoDB::Table
    Properties:
      BillingMode: PAY_PER_REQUEST
      KeySchema: [{ AttributeName: pk, KeyType: HASH }]
      AttributeDefinitions: [{ AttributeName: pk, AttributeType: S }]
`,
      "local-aws/s3/Docs/guide/readme.txt": "seeded",
      "local-aws/s3/Photos/cat.jpg": "not a bucket of the template",
      "local-aws/s3/loose.txt": "in no bucket's folder",
      "local-aws/dynamodb/Items.json": '[{ "pk": "a", "n": 1 }, { "n": 2 }]',
      "local-aws/dynamodb/Ghost.json": "[]",
      "local-aws/ssm.json": "{ /flag: on }",
      "local-aws/secretsmanager.json": '{ "db": "s3cret" }',
      "local-aws/notes.txt": "",
    };
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    aws = await startLocalAws();
  });
  afterAll(async () => {
    await aws?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("names each in one line saying what to do, and loads the rest", async () => {
    const { problems } = await createResources(readTemplate(join(dir, "template.yaml")), aws);
    expect(problems).toEqual([
      "The template's parameter Stage has no Default and no value: give it a value: --parameter-overrides Stage=VALUE, or parameter_overrides in the app's samconfig.toml; what needs it is not created.",
      "local-aws/notes.txt: the lab loads only local-aws/s3, local-aws/dynamodb, local-aws/ssm.json, local-aws/secretsmanager.json, local-aws/exports.json, local-aws/env-vars.json: it leaves this alone",
      "local-aws/s3/Photos: the template declares no bucket Photos (its buckets: Docs, Staged): name the folder after a bucket's logical id",
      "local-aws/s3/loose.txt: an object goes in its bucket's folder, local-aws/s3/<the bucket's logical id>/<key>",
      "local-aws/dynamodb/Ghost.json: the template declares no table Ghost (its tables: Items): name the file after a table's logical id",
      expect.stringMatching(
        /^local-aws\/ssm\.json is not JSON \(.+\): write an object of parameter name → value \(a string\), e\.g\. \{"\/app\/flag": "on"\}$/,
      ),
      expect.stringMatching(/^local-aws\/dynamodb\/Items\.json: item 2 not loaded: .*key.*: each item needs the table's key attributes, of their types$/),
    ]);
    const request = {
      endpoint: aws.endpoint,
      caFile: aws.caFile,
      region: "us-east-1",
      calls: [
        ["s3", "get_object", { Bucket: "warpstart-lab-docs", Key: "guide/readme.txt" }],
        ["dynamodb", "get_item", { TableName: "warpstart-lab-Items", Key: { pk: { S: "a" } } }],
        ["secretsmanager", "get_secret_value", { SecretId: "db" }],
      ],
    };
    const { stdout } = await execOwned(join(VENV_BIN, "python"), [join(PACKAGE_ROOT, "test/support/aws-calls.py"), JSON.stringify(request)]);
    const [object, item, secret] = JSON.parse(stdout);
    expect(object).toMatchObject({ ContentLength: 6 });
    expect(item).toEqual({ Item: { pk: { S: "a" }, n: { N: "1" } } });
    expect(secret).toMatchObject({ SecretString: "s3cret" });
  });
});
