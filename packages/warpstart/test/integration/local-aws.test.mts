// The local AWS: every service moto implements behind TLS with keep-alive, trusted through the
// lab's own CA only, with the template's resources created in it, every call recorded by the
// access key that signed it, and clear errors for a busy port or a missing tool.

import { createHash, createHmac } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect as connectHttp2 } from "node:http2";
import { Agent, request } from "node:https";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetAccountSettingsCommand, LambdaClient } from "@aws-sdk/client-lambda";
import { GetParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import { SignatureV4 } from "@smithy/signature-v4";
import type { AwsCall } from "../../core/init-services.mts";
import { PACKAGE_ROOT, setupHint } from "../../core/paths.mts";
import { readTemplate } from "../../core/template.mts";
import { assertPortFree, type LocalAws, NOT_SERVED, startLocalAws } from "../../emulation/local-aws/local-aws.mts";
import { createResources } from "../../emulation/local-aws/resources.mts";
import { EXAMPLES_TEMPLATE } from "../support/demo.mts";

let aws: LocalAws;
beforeAll(async () => {
  aws = await startLocalAws();
});
afterAll(async () => {
  await aws?.stop();
});

/** GET / over one agent; resolves with whether the socket was a reused one. */
function get(agent: Agent): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const req = request(`${aws.endpoint}/`, { agent }, (res) => {
      res.resume();
      res.on("end", () => resolve(req.reusedSocket));
    });
    req.on("error", reject);
    req.end();
  });
}

it("listens on 127.0.0.1 with a certificate from the lab's CA", () => {
  expect(aws.endpoint).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  expect(readFileSync(aws.caFile, "utf8")).toContain("BEGIN CERTIFICATE");
});

it("answers the SDK's GetCallerIdentity over TLS", async () => {
  const client = new STSClient({
    region: "us-east-1",
    endpoint: aws.endpoint,
    credentials: { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "secret" },
    requestHandler: { httpsAgent: new Agent({ ca: readFileSync(aws.caFile) }) },
  });
  const identity = await client.send(new GetCallerIdentityCommand({}));
  expect(identity).toMatchObject({ Account: "123456789012", Arn: "arn:aws:sts::123456789012:user/moto" });
  client.destroy();
});

it("keeps connections alive: the second request reuses the socket", async () => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: readFileSync(aws.caFile) });
  expect(await get(agent)).toBe(false);
  expect(await get(agent)).toBe(true);
  agent.destroy();
});

it("is not trusted without the lab's CA", async () => {
  await expect(get(new Agent({ ca: [] as string[] }))).rejects.toThrow(/certificate/);
});

it("says which port is busy when a fixed port is in use", async () => {
  const busy: Server = await new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => resolve(server));
  });
  const { port } = busy.address() as { port: number };
  try {
    await expect(startLocalAws({ port })).rejects.toThrow(`port 127.0.0.1:${port} is already in use; stop whatever listens there or pick another port.`);
  } finally {
    busy.close();
  }
});

it("says what to do when moto, the local AWS itself, is missing from the venv", async () => {
  // A venv whose gunicorn and python exist, with no moto in its site-packages.
  const venv = mkdtempSync(join(tmpdir(), "warpstart-no-moto-"));
  try {
    mkdirSync(join(venv, "bin"));
    mkdirSync(join(venv, "lib/python3.11/site-packages"), { recursive: true });
    for (const tool of ["gunicorn", "python"]) writeFileSync(join(venv, "bin", tool), "#!/bin/sh\nexit 1\n", { mode: 0o755 });
    await expect(startLocalAws({ venvBin: join(venv, "bin") })).rejects.toThrow(
      `moto is not installed in the Python venv ${venv} (it is the local AWS); ${setupHint("moto")}`,
    );
  } finally {
    rmSync(venv, { recursive: true, force: true });
  }
});

it("says how to install gunicorn when the venv is missing", async () => {
  const emptyVenv = mkdtempSync(join(tmpdir(), "warpstart-no-venv-"));
  try {
    await expect(startLocalAws({ venvBin: emptyVenv })).rejects.toThrow(
      `gunicorn not found at ${emptyVenv}/gunicorn: the Python venv is missing; ${setupHint("moto")}`,
    );
  } finally {
    rmSync(emptyVenv, { recursive: true, force: true });
  }
});

it("frees its port when stopped", async () => {
  const other = await startLocalAws();
  await other.stop();
  await expect(assertPortFree(other.port)).resolves.toBeUndefined();
});

describe("every service, one endpoint", () => {
  const credentials = (accessKeyId: string) => ({ accessKeyId, secretAccessKey: "secret" });
  const tls = () => ({ httpsAgent: new Agent({ ca: readFileSync(aws.caFile) }) });

  it("creates a template's resources and answers for them, with what Ref and Fn::GetAtt resolve to", async () => {
    const { attributes, notCreated } = await createResources(readTemplate(EXAMPLES_TEMPLATE), aws);
    expect(notCreated).toBeNull();
    expect(attributes).toMatchObject({
      GreetingParameter: { Ref: "/warpstart/examples/greeting" },
      ApiKeySecret: { Ref: expect.stringMatching(/^arn:aws:secretsmanager:us-east-1:123456789012:secret:warpstart\/examples\/api-key-\w{6}$/) },
      ItemsTable: { Ref: "warpstart-examples-items", Arn: "arn:aws:dynamodb:us-east-1:123456789012:table/warpstart-examples-items" },
    });
    const ssm = new SSMClient({ region: "us-east-1", endpoint: aws.endpoint, credentials: credentials("ASIATESTRESOURCES00"), requestHandler: tls() });
    expect((await ssm.send(new GetParameterCommand({ Name: "/warpstart/examples/greeting" }))).Parameter?.Value).toBe("hello from Parameter Store");
    ssm.destroy();
  });

  it("records each call by the access key that signed it: service, operation, status and the error it answered", async () => {
    const ssm = new SSMClient({
      region: "us-east-1",
      endpoint: aws.endpoint,
      credentials: credentials("ASIATESTCALLS000000"),
      requestHandler: tls(),
      maxAttempts: 1,
    });
    await expect(ssm.send(new GetParameterCommand({ Name: "/not/declared" }))).rejects.toMatchObject({ name: "ParameterNotFound" });
    ssm.destroy();
    expect(await aws.calls("ASIATESTCALLS000000")).toEqual([
      expect.objectContaining({ accessKeyId: "ASIATESTCALLS000000", service: "ssm", operation: "GetParameter", status: 400, errorCode: "ParameterNotFound" }),
    ]);
  });

  it("names, in one line, what a template declares that it cannot create", async () => {
    const { notCreated } = await createResources(readTemplate(join(PACKAGE_ROOT, "test/fixtures/sam-apps/unsupported-resource/template.yaml")), aws);
    expect(notCreated).toBe(
      "The lab's local AWS did not create GraphApi (AWS::AppSync::GraphQLApi: moto's CloudFormation does not implement this type): a function that calls it fails in the lab.",
    );
  });
});

describe("what moto does not serve", () => {
  /** What SignatureV4 hashes (@smithy/types SourceData). */
  type SourceData = string | ArrayBuffer | ArrayBufferView;
  const bytes = (data: SourceData) =>
    typeof data === "string" ? data : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);
  /** SHA-256 as SignatureV4 takes it (an HMAC given a secret). */
  class Sha256 {
    private readonly hash;
    constructor(secret?: SourceData) {
      this.hash = secret ? createHmac("sha256", bytes(secret)) : createHash("sha256");
    }
    update(data: SourceData) {
      this.hash.update(bytes(data));
    }
    async digest() {
      return new Uint8Array(this.hash.digest());
    }
  }
  /** A request to the local AWS signed for `service` as its SDK client signs it, with the signature's own headers. */
  async function signed(service: string, accessKeyId: string, path: string, headers: Record<string, string>, body: string) {
    const { port } = new URL(aws.endpoint);
    const signer = new SignatureV4({ service, region: "us-east-1", credentials: { accessKeyId, secretAccessKey: "secret" }, sha256: Sha256 });
    const request = await signer.sign({
      method: "POST",
      protocol: "https:",
      hostname: "127.0.0.1",
      port: Number(port),
      path,
      headers: { ...headers, host: `127.0.0.1:${port}` },
      body,
    });
    return request.headers;
  }
  /** POST over HTTP/2, as the SDK's Bedrock runtime client sends every call: the status, the error type header and the body. */
  async function postHttp2(service: string, accessKeyId: string, path: string, headers: Record<string, string>, body: string) {
    const { host: _host, ...signedHeaders } = await signed(service, accessKeyId, path, headers, body);
    const session = connectHttp2(aws.endpoint, { ca: readFileSync(aws.caFile) });
    try {
      return await new Promise<{ status: number; errorType: unknown; body: string }>((resolve, reject) => {
        const stream = session.request({ ":method": "POST", ":path": path, ...signedHeaders });
        let status = 0;
        let errorType: unknown;
        let text = "";
        stream.on("response", (responseHeaders) => {
          status = Number(responseHeaders[":status"]);
          errorType = responseHeaders["x-amzn-errortype"];
        });
        stream.on("data", (chunk: Buffer) => (text += chunk));
        stream.on("end", () => resolve({ status, errorType, body: text }));
        stream.on("error", reject);
        stream.end(body);
      });
    } finally {
      session.close();
    }
  }

  it("answers an operation of a service it implements that none of moto's routes takes (Lambda's GetAccountSettings) as not served, which the SDK reports", async () => {
    const lambda = new LambdaClient({
      region: "us-east-1",
      endpoint: aws.endpoint,
      credentials: { accessKeyId: "ASIATESTNOROUTE0000", secretAccessKey: "secret" },
      requestHandler: { httpsAgent: new Agent({ ca: readFileSync(aws.caFile) }) },
    });
    await expect(lambda.send(new GetAccountSettingsCommand({}))).rejects.toMatchObject({
      name: NOT_SERVED,
      message:
        "the local AWS (moto 5.2.5) does not serve lambda GET /2016-08-19/account-settings: moto implements lambda, not this operation; on Lambda this call reaches AWS",
      $metadata: { attempts: 1 },
    });
    lambda.destroy();
  });

  it("serves HTTP/2, which the SDK's Bedrock runtime client speaks only: moto's Bedrock runtime answers InvokeModel", async () => {
    const answer = await postHttp2(
      "bedrock",
      "ASIATESTBEDROCK0000",
      "/model/anthropic.claude-3-haiku-20240307-v1%3A0/invoke",
      { "content-type": "application/json" },
      "{}",
    );
    expect(answer).toMatchObject({ status: 200 });
  });

  it("answers a service moto does not implement with an error naming it, in its protocol's shape, and records it", async () => {
    const told: AwsCall[] = [];
    aws.onNotServed((call) => told.push(call));
    const said = (what: string) =>
      `the local AWS (moto 5.2.5) does not serve ${what}: moto implements no ${what.split(" ")[0]}; on Lambda this call reaches AWS`;
    // A JSON protocol (Amazon Translate) over HTTP/2: the error type and message the SDK reads.
    const json = await postHttp2(
      "translate",
      "ASIATESTNOTSERVED00",
      "/",
      { "content-type": "application/x-amz-json-1.1", "x-amz-target": "AWSShineFrontendService_20170701.TranslateText" },
      "{}",
    );
    expect({ ...json, body: JSON.parse(json.body) }).toEqual({
      status: 501,
      errorType: NOT_SERVED,
      body: { __type: NOT_SERVED, message: said("translate TranslateText") },
    });
    // A Query protocol (CloudSearch) over HTTP/1.1: its XML error.
    const form = "Action=DescribeDomains&Version=2013-01-01";
    const headers = await signed("cloudsearch", "ASIATESTNOTSERVED00", "/", { "content-type": "application/x-www-form-urlencoded" }, form);
    const xml = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${aws.endpoint}/`, { method: "POST", headers, ca: readFileSync(aws.caFile) }, (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, body: text }));
      });
      req.on("error", reject);
      req.end(form);
    });
    expect(xml).toEqual({
      status: 501,
      body: `<ErrorResponse><Error><Type>Sender</Type><Code>${NOT_SERVED}</Code><Message>${said("cloudsearch DescribeDomains")}</Message></Error></ErrorResponse>`,
    });
    const recorded = [
      expect.objectContaining({
        service: "translate",
        operation: "TranslateText",
        status: 501,
        errorCode: NOT_SERVED,
        errorMessage: said("translate TranslateText"),
      }),
      expect.objectContaining({ service: "cloudsearch", operation: "DescribeDomains", status: 501, errorCode: NOT_SERVED }),
    ];
    expect(await aws.calls("ASIATESTNOTSERVED00")).toEqual(recorded);
    expect(told).toEqual(recorded);
  });
});
