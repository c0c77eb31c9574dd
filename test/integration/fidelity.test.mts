// What the lab plays of Lambda beyond the runtime: the network between functions and the local
// AWS (a lookup and a handshake per connection, a round trip per answer), and code that a new
// environment reads from storage. Delays are asserted as lower bounds only: a busy machine can
// make an answer later, never earlier.

import { readFileSync } from "node:fs";
import { Agent } from "node:https";
import { join } from "node:path";
import { CreateTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import { type LocalAws, startLocalAws } from "../../core/local-aws/local-aws.mts";
import { type CodeLoading, LAMBDA_FIDELITY } from "../../lab/fidelity.mts";
import { startLab } from "../../lab/lab.mts";

const NETWORK = { name: "test", dnsMs: 60, rttMs: 25 };

describe(`a network with DNS ${NETWORK.dnsMs} ms and RTT ${NETWORK.rttMs} ms`, () => {
  let aws: LocalAws;
  beforeAll(async () => {
    aws = await startLocalAws({ network: NETWORK });
  });
  afterAll(async () => {
    await aws?.stop();
  });

  const client = <T,>(Client: new (config: object) => T, keepAlive: boolean) =>
    new Client({
      region: "us-east-1",
      endpoint: aws.endpoint,
      credentials: { accessKeyId: "AKIANETWORKTEST00000", secretAccessKey: "secret" },
      requestHandler: { httpsAgent: new Agent({ keepAlive, ca: readFileSync(aws.caFile) }) },
      maxAttempts: 1,
    });

  const timed = async (call: () => Promise<unknown>) => {
    const started = performance.now();
    await call();
    return performance.now() - started;
  };

  it("charges a new connection the lookup and three round trips (TCP, TLS 1.3, the request), a kept-alive one a round trip", async () => {
    const sts = client(STSClient, true);
    const first = await timed(() => sts.send(new GetCallerIdentityCommand({})));
    const second = await timed(() => sts.send(new GetCallerIdentityCommand({})));
    sts.destroy();
    expect(first).toBeGreaterThanOrEqual(NETWORK.dnsMs + 3 * NETWORK.rttMs);
    expect(second).toBeGreaterThanOrEqual(NETWORK.rttMs);
    expect(second).toBeLessThan(NETWORK.dnsMs + 3 * NETWORK.rttMs); // the same connection, not a new one
  });

  it("delivers a large body whole and in order", async () => {
    const dynamodb = client(DynamoDBClient, true);
    const blob = Uint8Array.from({ length: 300_000 }, (_, i) => i % 251);
    await dynamodb.send(
      new CreateTableCommand({
        TableName: "network-order",
        KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
        AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }],
        BillingMode: "PAY_PER_REQUEST",
      }),
    );
    await dynamodb.send(new PutItemCommand({ TableName: "network-order", Item: { id: { S: "blob" }, blob: { B: blob } } }));
    const got = await dynamodb.send(new GetItemCommand({ TableName: "network-order", Key: { id: { S: "blob" } } }));
    expect(Buffer.from(got.Item!.blob!.B!).equals(Buffer.from(blob))).toBe(true);
    dynamodb.destroy();
  });
});

describe("where a new environment's code comes from", () => {
  it.each<[CodeLoading, string]>([
    ["lambda", "storage: none of it is in the page cache when INIT begins"],
    ["none", "the page cache, where the fresh copy of the artifact is"],
  ])("--code-loading %s: %s", async (codeLoading) => {
    const lab = await startLab({
      template: join(import.meta.dirname, "../fixtures/lab/template.yaml"),
      parameterOverrides: {},
      only: ["CodeResidency"],
      fidelity: { ...LAMBDA_FIDELITY, codeLoading },
    });
    try {
      const { residentBytes } = JSON.parse((await lab.lambda.invoke("CodeResidency", Buffer.from("{}"))).payload.toString()) as { residentBytes: number };
      if (codeLoading === "lambda") expect(residentBytes).toBe(0);
      else expect(residentBytes).toBeGreaterThan(0);
    } finally {
      await lab.stop();
    }
  });
});

it("starts a lab with Lambda's network and code loading unless told otherwise", async () => {
  const lab = await startLab({ template: join(import.meta.dirname, "../fixtures/lab/template.yaml"), parameterOverrides: {}, only: ["Echo"] });
  try {
    expect(lab.fidelity).toEqual(LAMBDA_FIDELITY);
  } finally {
    await lab.stop();
  }
});
