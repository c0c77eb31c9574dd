// The Floor function: the identity function's work and answer with no AWS SDK. One SigV4-signed
// POST over node:https during INIT, parsed with a few regexes: as few modules as Node needs for
// the same STS call, so it is the lower bound every SDK build is compared to.
import { Agent, request } from "node:https";
import { type CallerIdentity, identityHandler, maskAccountIds, stopwatch, stsInitError } from "../identity/identity.mts";
import { signRequest } from "./sigv4.mts";

const STS_BODY = "Action=GetCallerIdentity&Version=2011-06-15";
const STS_TIMEOUT_MS = 5_000;

// The regional endpoint, as the SDK uses on Lambda; AWS_ENDPOINT_URL_STS or AWS_ENDPOINT_URL
// overrides it, as they do the SDK's (the lab).
const stsEndpoint = process.env.AWS_ENDPOINT_URL_STS || process.env.AWS_ENDPOINT_URL || `https://sts.${process.env.AWS_REGION}.amazonaws.com`;

// One keep-alive agent per execution environment, as the SDK client keeps its socket.
const agent = new Agent({ keepAlive: true });

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

function post(url: URL, headers: Record<string, string>, body: string): Promise<{ status: number; xml: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers, agent }, (res) => {
      let xml = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (xml += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, xml }));
      res.on("error", reject);
    });
    // A deadline for the whole exchange, so an endpoint that never answers cannot hang INIT.
    const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${STS_TIMEOUT_MS} ms`)), STS_TIMEOUT_MS);
    req.on("close", () => clearTimeout(deadline));
    req.on("error", reject);
    req.end(body);
  });
}

const XML_ENTITIES: Record<string, string> = { "&lt;": "<", "&gt;": ">", "&amp;": "&", "&quot;": '"', "&apos;": "'" };

/** The text of the first <tag> element; STS answers hold no attributes or nesting in the ones read. */
function xmlText(xml: string, tag: string): string | undefined {
  const text = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml)?.[1];
  return text?.replace(/&(?:lt|gt|amp|quot|apos);/g, (entity) => XML_ENTITIES[entity] ?? entity);
}

/** What an STS error answer says, in the SDK's terms: its Code and Message. */
function stsError(status: number, xml: string): string {
  return [xmlText(xml, "Code"), xmlText(xml, "Message")].filter(Boolean).join(": ") || `HTTP ${status}`;
}

async function callerIdentity(): Promise<CallerIdentity> {
  const elapsedMs = stopwatch();
  try {
    const url = new URL(stsEndpoint);
    const headers = signRequest({
      method: "POST",
      host: url.host,
      path: url.pathname,
      body: STS_BODY,
      headers: {
        "content-type": "application/x-www-form-urlencoded; charset=utf-8",
        "content-length": String(STS_BODY.length),
      },
      region: requiredEnv("AWS_REGION"),
      service: "sts",
      credentials: {
        accessKeyId: requiredEnv("AWS_ACCESS_KEY_ID"),
        secretAccessKey: requiredEnv("AWS_SECRET_ACCESS_KEY"),
        sessionToken: process.env.AWS_SESSION_TOKEN,
      },
      date: new Date(),
    });
    const { status, xml } = await post(url, headers, STS_BODY);
    if (status !== 200) throw new Error(stsError(status, xml));
    return {
      stsRequestId: xmlText(xml, "RequestId") ?? null,
      userId: maskAccountIds(xmlText(xml, "UserId")),
      account: maskAccountIds(xmlText(xml, "Account")),
      arn: maskAccountIds(xmlText(xml, "Arn")),
      initStsCallMs: elapsedMs(),
    };
  } catch (cause) {
    throw stsInitError(stsEndpoint, cause);
  }
}

export const handler = identityHandler(await callerIdentity(), {
  function: WARPSTART_FUNCTION,
  profile: WARPSTART_PROFILE,
  sdkVersion: "none",
  moduleUrl: import.meta.url,
});
