// What the lab plays of Lambda beyond the runtime: the network between functions and the local
// AWS (a lookup and a handshake per connection, a round trip per answer), and code that a new
// environment reads from storage. Delays are asserted as lower bounds only: a busy machine can
// make an answer later, never earlier.

import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { Agent } from "node:https";
import { join } from "node:path";
import { CreateTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import { NODE22 } from "../../core/paths.mts";
import { RUNTIMES } from "../../core/runtimes.mts";
import { type LocalAws, startLocalAws } from "../../emulation/local-aws/local-aws.mts";
import { runtimeDirOf } from "../../emulation/runtime-sdk.mts";
import { type CodeLoading, LAMBDA_FIDELITY } from "../../lab/fidelity.mts";
import { startLab } from "../../lab/lab.mts";

const NETWORK = { name: "test", dnsMs: 60, rttMs: 25 };
const DNS_PRELOAD = join(import.meta.dirname, "../../emulation/local-aws/dns.cjs");

/**
 * In a Node process with the lab's DNS (as a lab function has it): looks the local AWS up, keeps
 * the thread busy for twice the lookup, then calls STS by name. Says whether the answer was in
 * before the next turn of the event loop (the lookup ran while the JavaScript did), and when the
 * lookup and the call ended, in ms since the lookup started.
 */
const RESOLVE_WHILE_BUSY = `
const dns = require("node:dns");
const https = require("node:https");
const started = performance.now();
const host = new URL(process.env.AWS_ENDPOINT_URL).hostname;
let lookedUpMs;
dns.lookup(host, { all: true, hints: dns.ADDRCONFIG }, (error, addresses) => {
  if (error) throw error;
  lookedUpMs = performance.now() - started;
});
while (performance.now() - started < 2 * Number(process.env.WARPSTART_LAB_DNS_MS));
setImmediate(() => {
  const answeredWhileBusy = lookedUpMs !== undefined;
  const body = "Action=GetCallerIdentity&Version=2011-06-15";
  const headers = { "content-type": "application/x-www-form-urlencoded", authorization: "AWS4-HMAC-SHA256 Credential=AKIANETWORKTEST00000/20260101/us-east-1/sts/aws4_request, SignedHeaders=host, Signature=0" };
  const callStarted = performance.now();
  https.request(process.env.AWS_ENDPOINT_URL, { method: "POST", headers, agent: false }, (res) => {
    res.resume();
    res.on("end", () => console.log(JSON.stringify({ answeredWhileBusy, lookedUpMs, status: res.statusCode, callMs: performance.now() - callStarted })));
  }).end(body);
});`;

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
    const connectionsBefore = aws.connections();
    const first = await timed(() => sts.send(new GetCallerIdentityCommand({})));
    const second = await timed(() => sts.send(new GetCallerIdentityCommand({})));
    const connections = aws.connections() - connectionsBefore;
    sts.destroy();
    expect(first).toBeGreaterThanOrEqual(NETWORK.dnsMs + 3 * NETWORK.rttMs);
    expect(second).toBeGreaterThanOrEqual(NETWORK.rttMs);
    // The second call on the first's connection: no lookup or handshake to charge it (counted, not timed).
    expect(connections).toBe(1);
  });

  // That its port charges no second lookup is left unasserted here: only an upper bound on time
  // could show it, and a busy machine breaks those.
  it("by name, leaves the lookup to the client's process, where it runs while the JavaScript does, on a port of its own", async () => {
    const byName = aws.byName!;
    expect(byName).toEqual({ endpoint: `https://localhost:${byName.port}`, port: expect.any(Number), dnsMs: NETWORK.dnsMs });
    expect(byName.port).not.toBe(aws.port);
    const connectionsBefore = aws.connections();
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        NODE22,
        ["--require", DNS_PRELOAD, "-e", RESOLVE_WHILE_BUSY],
        { env: { AWS_ENDPOINT_URL: byName.endpoint, WARPSTART_LAB_DNS_MS: String(byName.dnsMs), NODE_EXTRA_CA_CERTS: aws.caFile } },
        (error, out) => (error ? reject(error) : resolve(out)),
      ),
    );
    const { answeredWhileBusy, lookedUpMs, status, callMs } = JSON.parse(stdout) as Record<string, number | boolean>;
    expect(status).toBe(200);
    expect(answeredWhileBusy).toBe(true);
    expect(lookedUpMs).toBeGreaterThanOrEqual(NETWORK.dnsMs);
    // One new connection by name: a lookup in the process (Node caches none) and three round trips.
    expect(aws.connections() - connectionsBefore).toBe(1);
    expect(callMs).toBeGreaterThanOrEqual(NETWORK.dnsMs + 3 * NETWORK.rttMs);
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
  // Its module, which no function of these tests loads, is put in the page cache first.
  const runtimeSdkModule = join(runtimeDirOf(RUNTIMES.node22), "node_modules/@aws-sdk/client-cloudformation/dist-cjs/index.js");

  it.each<[CodeLoading, string, { own: boolean; runtimeSdk: boolean }]>([
    ["lambda", "storage, its own and the runtime's SDK copy", { own: false, runtimeSdk: false }],
    ["artifact", "storage, the runtime's SDK copy from memory", { own: false, runtimeSdk: true }],
    ["none", "the page cache, where the fresh copy of the artifact is", { own: true, runtimeSdk: true }],
  ])("--code-loading %s: %s", async (codeLoading, _, resident) => {
    readFileSync(runtimeSdkModule);
    const lab = await startLab({
      template: join(import.meta.dirname, "../fixtures/lab/template.yaml"),
      parameterOverrides: {},
      only: ["CodeResidency"],
      fidelity: { ...LAMBDA_FIDELITY, codeLoading },
    });
    try {
      const answer = JSON.parse((await lab.lambda.invoke("CodeResidency", Buffer.from("{}"))).payload.toString()) as Record<string, unknown>;
      expect(answer.runtimeSdkFile).toBe(runtimeSdkModule);
      expect((answer.residentBytes as number) > 0).toBe(resident.own);
      expect((answer.runtimeSdkResidentBytes as number) > 0).toBe(resident.runtimeSdk);
    } finally {
      await lab.stop();
    }
  });
  it("stages the next cold start's sandbox at a configuration update, its code read from storage all the same: the lab's work stays out of the invoke", async () => {
    const lab = await startLab({
      template: join(import.meta.dirname, "../fixtures/lab/template.yaml"),
      parameterOverrides: {},
      only: ["CodeResidency", "Echo"],
      fidelity: { ...LAMBDA_FIDELITY, codeLoading: "lambda" },
    });
    try {
      // One function loads the runtime's SDK copy, the other nothing of it: the lab prepares both ahead.
      for (const name of ["CodeResidency", "Echo"]) {
        expect(lab.lambda.environments(name).staged).toBe(0);
        await lab.lambda.updateConfiguration(name, { Description: "force a cold start" });
        expect(lab.lambda.environments(name)).toMatchObject({ staged: 1, idle: 0, busy: 0 });
      }
      readFileSync(runtimeSdkModule);
      const cold = await lab.lambda.invoke("CodeResidency", Buffer.from("{}"));
      expect(cold.log.join("\n")).toMatch(/Init Duration: /);
      expect(lab.lambda.environments("CodeResidency")).toMatchObject({ staged: 0, idle: 1 });
      // What INIT loads was dropped when the sandbox was staged (the module read since, by this test, is back: so is it on Lambda's shared copy).
      const answer = JSON.parse(cold.payload.toString()) as Record<string, unknown>;
      expect((answer.residentBytes as number) > 0).toBe(false);
      const echo = await lab.lambda.invoke("Echo", Buffer.from("{}"));
      expect(echo.log.join("\n")).toMatch(/Init Duration: /);
      expect(lab.lambda.environments("Echo")).toMatchObject({ staged: 0, idle: 1 });
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
