// The examples' floors: an SDK client's call made with no SDK, for the services that speak the
// AWS JSON protocol (SSM, Secrets Manager, DynamoDB). The request goes through the signed POST
// the demo's Floor sends (signed-post.mts, the same file, + its SigV4 signer), so every floor loads
// the same few modules and any difference between floors is the service's, not the client's.
import { type PostAnswer, serviceEndpoint, signedPost } from "../../../lib/signed-post.mts";

export interface AwsJsonService {
  /** The SDK's service id, e.g. "Secrets Manager": errors name it, AWS_ENDPOINT_URL_SECRETS_MANAGER overrides its endpoint. */
  serviceId: string;
  /** The SigV4 signing name, also the regional endpoint's host prefix. */
  signingName: string;
  /** X-Amz-Target is <targetPrefix>.<Operation>. */
  targetPrefix: string;
  jsonVersion: "1.0" | "1.1";
}

/** A service error named as the SDK names it: after the error's code (__type), e.g. ParameterNotFound. */
class AwsServiceError extends Error {
  constructor(code: string | undefined, message: string) {
    super(message);
    if (code) this.name = code;
  }
}

/** The error code as the SDK reads it: x-amzn-errortype, else the body's code or __type, without namespace or suffix. */
function errorCode(header: string | string[] | undefined, body: { code?: unknown; __type?: unknown }): string | undefined {
  const raw = [header, body.code, body.__type].find((candidate) => typeof candidate === "string");
  return raw?.split(":")[0]?.split("#").pop();
}

/** An error answer's JSON body; {} when it has none (a proxy's page, an empty body). */
function errorBody(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) ?? {};
  } catch {
    return {};
  }
}

/**
 * A function that calls the service's operations; the output is the parsed JSON answer, typed by
 * the caller as the API reference documents it. A failure names the service, operation and
 * endpoint, and is named after the service's error code, as the SDK's error is.
 */
export function awsJsonClient({ serviceId, signingName, targetPrefix, jsonVersion }: AwsJsonService) {
  const endpoint = serviceEndpoint(serviceId.toUpperCase().replaceAll(" ", "_"), signingName);
  return async <Output,>(operation: string, input: object): Promise<Output> => {
    const failed = `${serviceId} ${operation} failed (endpoint ${endpoint})`;
    let answer: PostAnswer;
    try {
      answer = await signedPost({
        endpoint,
        signingName,
        headers: { "content-type": `application/x-amz-json-${jsonVersion}`, "x-amz-target": `${targetPrefix}.${operation}` },
        body: JSON.stringify(input),
      });
    } catch (cause) {
      throw new Error(`${failed}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    }
    if (answer.status === 200) return JSON.parse(answer.text) as Output;
    const body = errorBody(answer.text);
    const code = errorCode(answer.headers["x-amzn-errortype"], body);
    const message = body.message ?? body.Message;
    throw new AwsServiceError(code, `${failed}: ${[code, message].filter(Boolean).join(": ") || `HTTP ${answer.status}`}`);
  };
}
