// The Floor function's SigV4 signer against AWS's published Signature Version 4 test suite
// (AWS General Reference; the same vectors the SDKs test with), then against the SDK's own
// signer (@smithy/signature-v4) for the exact request Floor sends to STS.

import { createHash, createHmac, type Hash, type Hmac } from "node:crypto";
import { SignatureV4 } from "@smithy/signature-v4";

/** What the SDK's hash interface accepts (@smithy/types SourceData). */
type SourceData = string | ArrayBuffer | ArrayBufferView;

import { type Credentials, type SignInput, signRequest } from "../../lib/sigv4.mts";

const SUITE = {
  host: "example.amazonaws.com",
  path: "/",
  region: "us-east-1",
  service: "service",
  credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" },
  date: new Date("2015-08-30T12:36:00Z"),
} satisfies Partial<SignInput>;
const SUITE_SCOPE = "AKIDEXAMPLE/20150830/us-east-1/service/aws4_request";
// The suite's example session token (post-sts-token).
const SUITE_TOKEN =
  "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==";

describe("the AWS SigV4 test suite", () => {
  it("get-vanilla", () => {
    expect(signRequest({ ...SUITE, method: "GET", body: "", headers: {} })).toEqual({
      host: "example.amazonaws.com",
      "x-amz-date": "20150830T123600Z",
      authorization: `AWS4-HMAC-SHA256 Credential=${SUITE_SCOPE}, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31`,
    });
  });

  it("post-x-www-form-urlencoded", () => {
    const headers = signRequest({ ...SUITE, method: "POST", body: "Param1=value1", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(headers.authorization).toBe(
      `AWS4-HMAC-SHA256 Credential=${SUITE_SCOPE}, SignedHeaders=content-type;host;x-amz-date, Signature=ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a`,
    );
    expect(headers["content-type"]).toBe("application/x-www-form-urlencoded");
  });

  it("post-x-www-form-urlencoded, with the header name in any case and its value padded", () => {
    const headers = signRequest({ ...SUITE, method: "POST", body: "Param1=value1", headers: { "Content-Type": "  application/x-www-form-urlencoded " } });
    expect(headers.authorization).toContain("Signature=ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a");
    expect(Object.keys(headers)).not.toContain("Content-Type");
  });

  it("post-sts-header-before: a session token is sent and signed as x-amz-security-token", () => {
    const credentials: Credentials = { ...SUITE.credentials, sessionToken: SUITE_TOKEN };
    const headers = signRequest({ ...SUITE, credentials, method: "POST", body: "", headers: {} });
    expect(headers["x-amz-security-token"]).toBe(SUITE_TOKEN);
    expect(headers.authorization).toBe(
      `AWS4-HMAC-SHA256 Credential=${SUITE_SCOPE}, SignedHeaders=host;x-amz-date;x-amz-security-token, Signature=85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead`,
    );
  });

  it("never sends the secret key", () => {
    const headers = signRequest({ ...SUITE, method: "GET", body: "", headers: {} });
    expect(JSON.stringify(headers)).not.toContain(SUITE.credentials.secretAccessKey);
  });
});

/** The SDK signer's hash, on node:crypto (the SDK's own @smithy/hash-node is not installed here). */
class NodeSha256 {
  private readonly hash: Hash | Hmac;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash("sha256") : createHmac("sha256", bytes(secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return this.hash.digest();
  }
}

function bytes(data: SourceData): Buffer {
  if (typeof data === "string") return Buffer.from(data, "utf8");
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

describe("the same signature as the SDK's signer", () => {
  const body = "Action=GetCallerIdentity&Version=2011-06-15";
  const headers = { "content-type": "application/x-www-form-urlencoded; charset=utf-8", "content-length": String(body.length) };
  const credentials = {
    accessKeyId: "AKIAIOSFODNN7EXAMPLE",
    secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    sessionToken: "warpstart-lab-session",
  };
  const date = new Date("2026-01-02T03:04:05.678Z");

  it.each([
    ["the regional endpoint", "sts.eu-west-1.amazonaws.com", "eu-west-1"],
    ["the lab's endpoint, with a port", "127.0.0.1:41234", "us-east-1"],
  ])("for GetCallerIdentity at %s", async (_, host, region) => {
    // applyChecksum off: the SDK would add x-amz-content-sha256, which STS does not require.
    const sdk = new SignatureV4({ service: "sts", region, credentials, sha256: NodeSha256, applyChecksum: false });
    const sdkSigned = await sdk.sign(
      { method: "POST", protocol: "https:", hostname: host.split(":")[0]!, path: "/", query: {}, headers: { ...headers, host }, body },
      { signingDate: date },
    );
    const ours = signRequest({ method: "POST", host, path: "/", body, headers, region, service: "sts", credentials, date });
    expect(ours).toEqual(sdkSigned.headers);
    expect(ours.authorization).toContain("SignedHeaders=content-length;content-type;host;x-amz-date;x-amz-security-token,");
  });
});
