// What every Floor function sends in place of an SDK client: one SigV4-signed POST over
// node:https, with the environment's credentials, one keep-alive agent and a deadline. The demo's
// Floor (STS) and the examples' floors (SSM, Secrets Manager, DynamoDB) send it.
import type { IncomingHttpHeaders } from "node:http";
import { Agent, request } from "node:https";
import { signRequest } from "./sigv4.mts";

const DEADLINE_MS = 5_000;

// One keep-alive agent per execution environment, as an SDK client keeps its socket.
const agent = new Agent({ keepAlive: true });

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/**
 * A service's endpoint as the SDK finds it: AWS_ENDPOINT_URL_<SERVICE ID> (e.g. SECRETS_MANAGER),
 * else AWS_ENDPOINT_URL (the lab), else the regional endpoint the SDK uses on Lambda.
 */
export function serviceEndpoint(serviceId: string, hostPrefix: string): string {
  return process.env[`AWS_ENDPOINT_URL_${serviceId}`] || process.env.AWS_ENDPOINT_URL || `https://${hostPrefix}.${process.env.AWS_REGION}.amazonaws.com`;
}

export interface SignedPost {
  endpoint: string;
  /** The SigV4 signing name, e.g. sts, ssm. */
  signingName: string;
  /** Headers to send and sign besides host, content-length and the signature's own. */
  headers: Record<string, string>;
  body: string;
}

export interface PostAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** Signs the request with the environment's credentials and sends it; any HTTP status is an answer. */
export async function signedPost({ endpoint, signingName, headers, body }: SignedPost): Promise<PostAnswer> {
  const url = new URL(endpoint);
  const signed = signRequest({
    method: "POST",
    host: url.host,
    path: url.pathname,
    body,
    headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
    region: requiredEnv("AWS_REGION"),
    service: signingName,
    credentials: {
      accessKeyId: requiredEnv("AWS_ACCESS_KEY_ID"),
      secretAccessKey: requiredEnv("AWS_SECRET_ACCESS_KEY"),
      sessionToken: process.env.AWS_SESSION_TOKEN,
    },
    date: new Date(),
  });
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: signed, agent }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on("error", reject);
    });
    // A deadline for the whole exchange, so an endpoint that never answers cannot hang INIT.
    const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${DEADLINE_MS} ms`)), DEADLINE_MS);
    req.on("close", () => clearTimeout(deadline));
    req.on("error", reject);
    req.end(body);
  });
}
