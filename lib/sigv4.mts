// A minimal AWS Signature Version 4 signer for the Floor function's one request: a query-less
// request signed in the Authorization header, every given header signed. Pure: the caller
// passes the clock. Steps and names follow the AWS IAM guide, "Create a signed AWS API request".

// Not `import ... from "node:crypto"`: building that ES module namespace runs crypto's lazy
// getters and loads webcrypto. This way the signer loads nothing node:https has not loaded.
const { createHash, createHmac } = process.getBuiltinModule("node:crypto");

/** @public The signer's tests name it (test/unit/floor-sigv4.test.mts). */
export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
}

export interface SignInput {
  method: string;
  /** The Host header as sent: hostname, plus ":port" when not the scheme's default. */
  host: string;
  /** Absolute, already URI-encoded path, without a query string. */
  path: string;
  body: string;
  /** Headers to send and sign besides host, x-amz-date and x-amz-security-token. */
  headers: Record<string, string>;
  region: string;
  service: string;
  credentials: Credentials;
  date: Date;
}

const ALGORITHM = "AWS4-HMAC-SHA256";

const sha256Hex = (data: string) => createHash("sha256").update(data, "utf8").digest("hex");
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data, "utf8").digest();

/** 2015-08-30T12:36:00.000Z -> 20150830T123600Z */
const amzDate = (date: Date) => date.toISOString().replace(/[-:]|\.\d{3}/g, "");

/** Header values are trimmed and inner runs of spaces collapsed before they are signed. */
const canonicalValue = (value: string) => value.trim().replace(/ +/g, " ");

/** The headers to send (names lower-cased), including host, x-amz-date and authorization. */
export function signRequest(input: SignInput): Record<string, string> {
  const timestamp = amzDate(input.date);
  const day = timestamp.slice(0, 8);
  const headers: Record<string, string> = { host: input.host, "x-amz-date": timestamp };
  for (const [name, value] of Object.entries(input.headers)) headers[name.toLowerCase()] = value;
  if (input.credentials.sessionToken) headers["x-amz-security-token"] = input.credentials.sessionToken;

  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(";");
  const canonicalHeaders = names.map((name) => `${name}:${canonicalValue(headers[name]!)}\n`).join("");
  const canonicalRequest = [input.method, input.path, "", canonicalHeaders, signedHeaders, sha256Hex(input.body)].join("\n");

  const scope = `${day}/${input.region}/${input.service}/aws4_request`;
  const stringToSign = [ALGORITHM, timestamp, scope, sha256Hex(canonicalRequest)].join("\n");
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${input.credentials.secretAccessKey}`, day), input.region), input.service), "aws4_request");
  const signature = createHmac("sha256", signingKey).update(stringToSign, "utf8").digest("hex");

  headers.authorization = `${ALGORITHM} Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}
