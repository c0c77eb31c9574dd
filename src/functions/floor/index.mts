// The Floor function: the identity function's work and answer with no AWS SDK. One SigV4-signed
// POST over node:https during INIT, parsed with a few regexes: as few modules as Node needs for
// the same STS call, so it is the lower bound every SDK build is compared to.

import { serviceEndpoint, signedPost } from "../../../lib/signed-post.mts";
import { stopwatch } from "../../../lib/stopwatch.mts";
import { type CallerIdentity, identityHandler, maskAccountIds, stsInitError } from "../identity/identity.mts";

const STS_BODY = "Action=GetCallerIdentity&Version=2011-06-15";

// The regional endpoint, as the SDK uses on Lambda, unless the environment names another (the lab).
const stsEndpoint = serviceEndpoint("STS", "sts");

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
    const { status, text: xml } = await signedPost({
      endpoint: stsEndpoint,
      signingName: "sts",
      headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
      body: STS_BODY,
    });
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
