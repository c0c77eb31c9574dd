// The event a template function gets when none is given (`npm run invoke` without --event, the
// bench, the doctor, the tests): one shaped for its first event source, as SAM CLI's own
// `sam local generate-event` makes it, with the template's names filled in where the generator
// takes them. A GET route of an HTTP API gets http-api.json (beside this file) instead, the request API
// Gateway sends for a GET (`sam local invoke -e` takes it too); the generator's is a POST with a
// body. What the generator has no event for is made here as AWS documents it: an ApiGatewayV2
// WebSocket route's, and the Create request CloudFormation sends a custom resource. Where no
// event can be made (nothing invokes the function, a Step Functions task, a trigger neither
// makes), the function gets {}, as `sam local invoke` without an event sends, and eventNote says
// so and how to give one. Generated events are kept under .lab/events/: SAM CLI takes a second
// to start, and the bench sends the same event every round.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { errorMessage } from "../core/errors.mts";
import { UsageError } from "../core/options.mts";
import { STATE_DIR } from "../core/paths.mts";
import { fixedName, NAMED_TYPES, PSEUDO_PARAMETERS, type TemplateEventSource, type TemplateFunction, type TemplateResource } from "../core/template.mts";
import { filteredEvent, filterPatterns } from "./event-filters.mts";
import { LOCAL_REGION } from "./local-aws/local-aws.mts";
import { type EventData, functionUrlDomain, madeUpId, madeUpName } from "./local-aws/resources.mts";
import { samCliVersion, samGenerateEvent } from "./sam-cli.mts";

export const SAMPLE_EVENT = join(import.meta.dirname, "http-api.json");
const GENERATED_DIR = join(STATE_DIR, "events");

type Event = Record<string, unknown>;
type Query = Record<string, string>;

/** The property that names each kind of resource an event source reads from; without it CloudFormation makes a name up. */
const NAME_PROPERTY: Record<string, string> = {
  "AWS::S3::Bucket": "BucketName",
  "AWS::SQS::Queue": "QueueName",
  "AWS::SNS::Topic": "TopicName",
  "AWS::DynamoDB::Table": "TableName",
};

/** Reads a name out of an ARN written in the template (undefined: not such an ARN). */
type ArnName = (arn: string) => string | undefined;
const lastArnPart: ArnName = (arn) => (arn.startsWith("arn:") ? arn.split(":").pop() : undefined);
const tableOfStream: ArnName = (arn) => /^arn:[^:]+:dynamodb:[^:]*:[^:]*:table\/([^/]+)\//.exec(arn)?.[1];

/** A generator's arguments for one event source, or what it has no event for; `name` reads the name a property gives (nameOf). */
type Generator = (source: TemplateEventSource, name: (property: string, fromArn?: ArnName) => string) => string[] | { none: string };

// EventBridge has no event of its own in the generator: the scheduled event is the envelope every
// rule's target gets. RuleName is EventBridgeRule's; CloudFormation names a CloudWatchEvent's rule.
const eventBridge: Generator = (_, name) => ["cloudwatch", "scheduled-event", "--rule", name("RuleName")];
const schedule: Generator = (_, name) => ["cloudwatch", "scheduled-event", "--rule", name("Name")];

/** `sam local generate-event` per SAM event source type. */
const GENERATORS: Record<string, Generator> = {
  // A REST API's resource is the route's path, {parameters} and all.
  Api: (source) => {
    const { path } = routeOf(source);
    return ["apigateway", "aws-proxy", ...requestOptions(source), ...(path === null ? [] : ["--resource", path])];
  },
  // Payload format 1.0 is the REST API's request.
  HttpApi: (source) => (isPayload1(source) ? GENERATORS.Api!(source, () => "") : ["apigateway", "http-api-proxy", ...requestOptions(source)]),
  // Bucket names are lower case: CloudFormation lowercases the ones it makes up.
  S3: (source, name) => ["s3", "put", "--bucket", name("Bucket").toLowerCase(), ...s3KeyOption(source)],
  SQS: (_, name) => ["sqs", "receive-message", "--queue-name", name("Queue", lastArnPart)],
  SNS: (_, name) => ["sns", "notification", "--topic", name("Topic", lastArnPart)],
  DynamoDB: (_, name) => ["dynamodb", "update", "--table", name("Stream", tableOfStream)],
  Kinesis: () => ["kinesis", "get-records"], // takes no stream name
  EventBridgeRule: eventBridge,
  CloudWatchEvent: eventBridge,
  Schedule: schedule,
  ScheduleV2: schedule,
  CloudWatchLogs: () => ["cloudwatch", "logs"],
  AlexaSkill: () => ["alexa-skills-kit", "start-session"],
  // A REST API's Lambda authorizer: a TOKEN one by default (SAM's FunctionPayloadType), or REQUEST.
  ApiAuthorizer: ({ properties }) => ["apigateway", properties.FunctionPayloadType === "REQUEST" ? "request-authorizer" : "authorizer"],
  // An HTTP API's: payload format 1.0 (a string, or the number YAML reads 1.0 as) is the REST API's REQUEST event; the generator has none of 2.0's.
  HttpApiAuthorizer: ({ name, properties: { AuthorizerPayloadFormatVersion: format } }) =>
    Number(format) === 1
      ? ["apigateway", "request-authorizer"]
      : { none: `it is the authorizer ${name}, whose events are HTTP API authorizer events of payload format ${Number(format).toFixed(1)}` },
};

/**
 * The generator's key (test/key) within the event's Filter, which S3 sends events for only:
 * its prefix and suffix around it (a handler of .json uploads gets a .json key).
 */
function s3KeyOption({ properties: { Filter } }: TemplateEventSource): string[] {
  const rules = (Filter as { S3Key?: { Rules?: { Name?: unknown; Value?: unknown }[] } } | undefined)?.S3Key?.Rules ?? [];
  const rule = (name: string) => String(rules.find((candidate) => String(candidate.Name).toLowerCase() === name)?.Value ?? "");
  return rules.length ? ["--key", `${rule("prefix")}test/key${rule("suffix")}`] : [];
}

/** An API event's route: its method (SAM's default: ANY) and path (none: an HTTP API's catch-all route). */
function routeOf({ properties: { Method, Path } }: TemplateEventSource): { method: string; path: string | null } {
  return { method: String(Method ?? "ANY").toUpperCase(), path: typeof Path === "string" ? Path : null };
}

/** The request of an API event's route: ANY is left to the generator (a POST); it writes the path's leading slash itself. */
function requestOptions(source: TemplateEventSource): string[] {
  const { method, path } = routeOf(source);
  return [...(method === "ANY" ? [] : ["--method", method]), ...(path === null ? [] : ["--path", path.replace(/^\//, "")])];
}

/** An HTTP API route whose integration sends payload format 1.0 (a string, or the number YAML reads 1.0 as): the REST API's request. */
const isPayload1 = ({ type, properties }: TemplateEventSource) => type === "HttpApi" && Number(properties.PayloadFormatVersion ?? 2) === 1;

function isGetRoute(source: TemplateEventSource): boolean {
  const { method, path } = routeOf(source);
  return source.type === "HttpApi" && !isPayload1(source) && method === "GET" && path !== null;
}

/**
 * The name an event source's property gives: a name (or an ARN `fromArn` reads it from) written
 * out, the name the referenced resource is given, or else one made up as the lab's local AWS
 * makes up a resource's (emulation/local-aws/resources.mts: stack-LogicalId), for the referenced
 * resource or, referencing none, for what SAM creates for the event (logical id <Function><Event>).
 */
function nameOf(logicalId: string, source: TemplateEventSource, property: string, fromArn: ArnName = () => undefined): string {
  const value = source.properties[property];
  if (typeof value === "string") return fromArn(value) ?? value;
  const resource = source.references[property];
  return resource ? labNameOf(resource) : `warpstart-lab-${logicalId}${source.name}`;
}

/** A referenced resource's name as the lab gives it: the one the template gives it, or the one the lab makes up. */
function labNameOf(resource: TemplateResource): string {
  const given = fixedName(resource) ?? resource.properties[NAME_PROPERTY[resource.type] ?? ""];
  return typeof given === "string" ? given : madeUpName(resource.type, resource.logicalId);
}

/** When the events made here were sent: the sample's (http-api.json), so that an event is the same every time (the build cache keys on it). */
const REQUEST_TIME = { text: "22/Nov/2026:03:15:00 +0000", epochMs: 1795317300000 };
/** Where the events made here come from: an address of the documentation range (RFC 5737), as in the sample. */
const SOURCE_IP = "192.0.2.10";

/** A request id in a UUID's shape, the same for the same `seed`. */
const madeUpUuid = (seed: string) =>
  createHash("sha256")
    .update(seed)
    .digest("hex")
    .slice(0, 32)
    .replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, "$1-$2-$3-$4-$5");

/** The body a WebSocket route's placeholder message carries: its route key where the route selection expression reads it ($request.body.<field>). */
function webSocketBody(routeKey: string, selection: unknown): string {
  const field = /^\$request\.body\.(\w+)$/.exec(String(selection ?? "$request.body.action"))?.[1] ?? "action";
  return JSON.stringify({ ...(routeKey.startsWith("$") ? {} : { [field]: routeKey }), data: "a message from the warpstart lab" });
}

/**
 * What API Gateway sends a WebSocket API's REQUEST authorizer on $connect (the developer guide's
 * "Lambda REQUEST authorizers" for WebSocket APIs): the handshake's headers and request context, the
 * route's ARN to allow or deny.
 */
function webSocketAuthorizerEvent(source: TemplateEventSource): Event {
  const { headers, multiValueHeaders, requestContext } = webSocketEvent(source);
  const { apiId, stage } = requestContext as { apiId: string; stage: string };
  return {
    type: "REQUEST",
    methodArn: `arn:aws:execute-api:${LOCAL_REGION}:${PSEUDO_PARAMETERS["AWS::AccountId"]}:${apiId}/${stage}/$connect`,
    headers,
    multiValueHeaders,
    queryStringParameters: {},
    multiValueQueryStringParameters: {},
    stageVariables: {},
    requestContext,
  };
}

/**
 * The event API Gateway sends a WebSocket route's Lambda proxy integration (the developer guide's
 * "WebSocket API" integration requests): CONNECT for $connect (with the handshake's headers),
 * DISCONNECT for $disconnect, MESSAGE with a body for any other route.
 */
function webSocketEvent({ properties }: TemplateEventSource): Event {
  const routeKey = String(properties.RouteKey);
  const apiId = madeUpId(String(properties.ApiId), 10);
  const domainName = `${apiId}.execute-api.${LOCAL_REGION}.amazonaws.com`;
  const eventType = routeKey === "$connect" ? "CONNECT" : routeKey === "$disconnect" ? "DISCONNECT" : "MESSAGE";
  const requestId = `${madeUpId(`${apiId}${routeKey}`, 15).toUpperCase()}=`;
  const headers = {
    Host: domainName,
    "Sec-WebSocket-Extensions": "permessage-deflate; client_max_window_bits",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version": "13",
    "X-Amzn-Trace-Id": "Root=1-67891233-abcdef012345678912345678",
    "X-Forwarded-For": SOURCE_IP,
    "X-Forwarded-Port": "443",
    "X-Forwarded-Proto": "https",
  };
  const handshake =
    eventType === "MESSAGE" ? {} : { headers, multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])) };
  return {
    ...handshake,
    requestContext: {
      routeKey,
      eventType,
      extendedRequestId: requestId,
      requestTime: REQUEST_TIME.text,
      messageDirection: "IN",
      stage: properties.Stage,
      connectedAt: REQUEST_TIME.epochMs,
      requestTimeEpoch: REQUEST_TIME.epochMs,
      identity: { sourceIp: SOURCE_IP, userAgent: "warpstart-lab" },
      requestId,
      domainName,
      connectionId: "V2FycHN0YXJ0TGFi=",
      apiId,
      ...(eventType === "MESSAGE" ? { messageId: requestId } : {}),
      ...(eventType === "DISCONNECT" ? { disconnectStatusCode: 1005, disconnectReason: "" } : {}),
    },
    ...(eventType === "MESSAGE" ? { body: webSocketBody(routeKey, properties.RouteSelectionExpression) } : {}),
    isBase64Encoded: false,
  };
}

/**
 * Where a custom resource's handler PUTs its response: the local AWS answers it (app.py, same
 * path), reached at 127.0.0.1:443 (the outbound guard takes that port to the local AWS's: cfn-response
 * connects to 443 whatever the URL says). On AWS, an S3 URL CloudFormation presigns.
 */
const RESPONSE_URL = "https://127.0.0.1/cloudformation-custom-resource-response";

/** What the lab sends for a value it cannot know before it runs: an Fn::GetAtt, a Ref inside a value. */
const PLACEHOLDER = "warpstart-lab-placeholder";

/** What CloudFormation sends of a property's value: a string for a number or a boolean, at any depth; PLACEHOLDER (and `unknown` called) for an intrinsic left. */
function asSent(value: unknown, unknown: () => void): unknown {
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return value.map((item) => asSent(item, unknown));
  if (!value || typeof value !== "object") return value;
  const [key] = Object.keys(value);
  if (key === "Ref" || key?.startsWith("Fn::")) {
    unknown();
    return PLACEHOLDER;
  }
  return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, asSent(inner, unknown)]));
}

/**
 * A custom resource's ResourceProperties as CloudFormation sends them: its ServiceToken as the
 * function's ARN, a Ref of a template resource whose Ref is its name as that name, a number or
 * boolean as a string; and the ones the lab cannot know before it runs (an Fn::GetAtt, another
 * Ref, a Ref inside a value), sent as PLACEHOLDER.
 */
function resourceProperties({ properties, references }: TemplateEventSource): { sent: Event; placeholders: string[] } {
  const { ResourceType: _type, ...given } = properties;
  const placeholders = new Set<string>();
  const sent = Object.fromEntries(
    Object.entries(given).map(([name, value]) => {
      const resource = references[name];
      if (resource && name === "ServiceToken")
        return [name, `arn:aws:lambda:${LOCAL_REGION}:${PSEUDO_PARAMETERS["AWS::AccountId"]}:function:${resource.logicalId}`];
      // Of the types whose Ref is their name: what else a Ref answers (an ARN, a URL) exists once the resource does.
      if (resource && (value as { Ref?: unknown }).Ref !== undefined && resource.type in NAMED_TYPES) return [name, labNameOf(resource)];
      return [name, asSent(value, () => placeholders.add(name))];
    }),
  );
  return { sent, placeholders: [...placeholders] };
}

/** The Create request CloudFormation sends a custom resource's function when the stack is created (the CloudFormation user guide's custom resource request objects). */
export function customResourceRequest(source: TemplateEventSource): Event {
  const stackId = PSEUDO_PARAMETERS["AWS::StackId"]!;
  const requestId = madeUpUuid(`${stackId}|${source.name}`);
  const properties = resourceProperties(source).sent;
  return {
    RequestType: "Create",
    ServiceToken: properties.ServiceToken,
    ResponseURL: `${RESPONSE_URL}/${encodeURIComponent(`${stackId}|${source.name}|${requestId}`)}`,
    StackId: stackId,
    RequestId: requestId,
    LogicalResourceId: source.name,
    ResourceType: source.properties.ResourceType,
    ResourceProperties: properties,
  };
}

/** The principal a placeholder of an authorizer's answer names. */
const PRINCIPAL = "warpstart-lab-user";

/** The authorizer that protects an API event's route (its own Auth.Authorizer, else its API's DefaultAuthorizer), if it is a Lambda, Cognito or JWT one. */
function authorizerOf(source: TemplateEventSource): { name: string; kind: "lambda" | "cognito" | "jwt" } | null {
  if (source.type !== "Api" && source.type !== "HttpApi") return null;
  const api = source.references[source.type === "Api" ? "RestApiId" : "ApiId"];
  const auth = (api?.properties.Auth ?? {}) as { DefaultAuthorizer?: unknown; Authorizers?: Record<string, Record<string, unknown>> };
  const own = (source.properties.Auth as { Authorizer?: unknown } | undefined)?.Authorizer;
  const name = String(own ?? auth.DefaultAuthorizer ?? "NONE");
  const authorizer = auth.Authorizers?.[name];
  if (!authorizer) return null; // NONE, AWS_IAM, or none at all
  if (authorizer.FunctionArn !== undefined) return { name, kind: "lambda" };
  if (authorizer.UserPoolArn !== undefined) return { name, kind: "cognito" };
  return authorizer.JwtConfiguration === undefined ? null : { name, kind: "jwt" };
}

/**
 * An API request as its route's authorizer lets it through: requestContext.authorizer as API
 * Gateway adds it (REST and payload 1.0: principalId and the context a Lambda authorizer returns,
 * a user pool's claims; payload 2.0: lambda's context, jwt's claims and scopes), a placeholder of
 * the authorizer's answer (eventNote says so).
 */
function withAuthorizer(request: Event, source: TemplateEventSource): Event {
  const authorizer = authorizerOf(source);
  if (!authorizer) return request;
  const claims = { sub: "00000000-0000-0000-0000-000000000000", "cognito:username": PRINCIPAL, username: PRINCIPAL };
  const payload2 = source.type === "HttpApi" && !isPayload1(source);
  const given = {
    lambda: payload2 ? { lambda: {} } : { principalId: PRINCIPAL, integrationLatency: 0 },
    cognito: { claims },
    jwt: { jwt: { claims, scopes: [] } },
  }[authorizer.kind];
  return { ...request, requestContext: { ...(request.requestContext as Event), authorizer: given } };
}

/** What of a made event is a placeholder, in words eventNote quotes (null: nothing). */
function placeholderOf(source: TemplateEventSource): string | null {
  const sample = SAMPLE_MESSAGES[source.type];
  if (sample) {
    const [what, text] = sample;
    return filterPatterns(source.properties).length > 0
      ? `its ${what} is SAM CLI's sample, changed as little as its FilterCriteria takes`
      : `its ${what} is SAM CLI's sample, ${text}`;
  }
  // An authorizer's event is the generator's: its token, or its request, are samples.
  if (source.type === "ApiAuthorizer" && source.properties.FunctionPayloadType !== "REQUEST")
    return `its authorizationToken is SAM CLI's sample token, "incoming-client-token", and its methodArn the sample's`;
  if (source.type === "ApiAuthorizer" || source.type === "HttpApiAuthorizer") return "its request (headers, query string, methodArn) is SAM CLI's sample";
  const authorizer = authorizerOf(source);
  // A request with a body (not a GET) carries the generator's sample body.
  const body = (source.type === "Api" || source.type === "HttpApi") && routeOf(source).method !== "GET" ? "its body is SAM CLI's sample request body" : null;
  if (authorizer) {
    const what = {
      lambda: `principalId ${PRINCIPAL}, no context`,
      cognito: `the claims of a user ${PRINCIPAL}`,
      jwt: `the claims of a user ${PRINCIPAL}, no scopes`,
    };
    return [body, `its requestContext.authorizer is a placeholder of what its authorizer ${authorizer.name} adds (${what[authorizer.kind]})`]
      .filter(Boolean)
      .join("; ");
  }
  if (body) return body;
  if (source.type === "WebSocket" && !String(source.properties.RouteKey).match(/^\$(connect|disconnect)$/))
    return `its body is a placeholder message, ${webSocketBody(String(source.properties.RouteKey), source.properties.RouteSelectionExpression)}`;
  if (source.type === "CustomResource") {
    const { placeholders } = resourceProperties(source);
    if (placeholders.length)
      return `its ResourceProperties ${placeholders.join(", ")} ${placeholders.length === 1 ? "is a placeholder" : "are placeholders"} (${PLACEHOLDER}): the lab makes the event before it creates what ${placeholders.length === 1 ? "it names" : "they name"}`;
  }
  return null;
}

/** What of a queue's, topic's or stream's generated event is the generator's sample text, not the app's message. */
const SAMPLE_MESSAGES: Record<string, [string, string]> = {
  SQS: ["message body", '"Hello from SQS!"'],
  SNS: ["message", '"example message"'],
  Kinesis: ["record's data", 'base64 of "Hello, this is a test 123."'],
};

/** The events made here, not by the generator: what it has no event for, as AWS documents it. */
const MADE: Record<string, (source: TemplateEventSource) => Event> = {
  WebSocket: webSocketEvent,
  WebSocketAuthorizer: webSocketAuthorizerEvent,
  CustomResource: customResourceRequest,
  FunctionUrl: functionUrlRequest,
  CodeDeployHook: deploymentHookEvent,
};

/**
 * What CodeDeploy sends a PreTraffic or PostTraffic hook (the SAM developer guide's "Deploying
 * serverless applications gradually"): the deployment and the hook's execution, whose status the
 * hook reports back with PutLifecycleEventHookExecutionStatus.
 */
function deploymentHookEvent({ name }: TemplateEventSource): Event {
  return { DeploymentId: `d-${madeUpId(name, 9).toUpperCase()}`, LifecycleEventHookExecutionId: Buffer.from(madeUpUuid(name)).toString("base64") };
}

/**
 * The request a function URL sends (the Lambda developer guide's "Invoking Lambda function URLs"):
 * payload format 2.0 of the catch-all route, on the URL's own domain, without a query string.
 */
function functionUrlRequest({ name }: TemplateEventSource): Event {
  const request = routeEvent(null);
  const domainName = functionUrlDomain(name);
  const urlId = domainName.split(".")[0]!;
  const context = request.requestContext as Event;
  return {
    ...request,
    headers: { ...(request.headers as Event), host: domainName },
    requestContext: { ...context, apiId: urlId, domainName, domainPrefix: urlId },
  };
}

/** The types whose target gets the JSON of their Input instead of the scheduled event, when they give one. */
const TAKES_INPUT = new Set(["EventBridgeRule", "CloudWatchEvent", "Schedule", "ScheduleV2"]);

/** A rule's or schedule's Input (JSON text) as the event its target gets; undefined when it gives none, or not JSON. */
function inputOf({ type, properties: { Input: input } }: TemplateEventSource): Event | undefined {
  if (!TAKES_INPUT.has(type) || typeof input !== "string") return undefined;
  try {
    return JSON.parse(input) as Event;
  } catch {
    return undefined;
  }
}

/**
 * The `sam local generate-event` arguments for a function's event source, the template's names
 * filled in; null for a GET route of an HTTP API, whose event is SAMPLE_EVENT; or why there are
 * none (`{ none }`): a trigger the generator has no event for.
 */
export function generateEventArgs(logicalId: string, source: TemplateEventSource): string[] | null | { none: string } {
  if (isGetRoute(source)) return null;
  const generator = GENERATORS[source.type];
  if (!generator) return { none: `its first event source, ${source.name}, is of type ${source.type}, which SAM CLI's generate-event has no event for` };
  const args = generator(source, (property, fromArn) => nameOf(logicalId, source, property, fromArn));
  return "none" in args ? { none: `${args.none}, which SAM CLI's generate-event has no event for` } : args;
}

/** Why no event can be made for a function (null: one can): what eventNote says it sent {} for want of. */
function whyNoEvent(fn: Pick<TemplateFunction, "logicalId" | "eventSource" | "sampleEvent">): string | null {
  const source = fn.eventSource;
  if (fn.sampleEvent) return null;
  if (!source) return "nothing in the template invokes it";
  if (source.type === "StepFunctionsTask")
    return `it is the task of state ${source.properties.State} of the state machine ${source.properties.StateMachine}, whose input is that state's input, which the template does not fix`;
  if (source.type === "Cognito")
    return `it is the ${source.properties.Trigger} trigger of the user pool ${source.properties.UserPool}, whose events SAM CLI's generate-event has none of`;
  if (MADE[source.type]) return null;
  const args = generateEventArgs(fn.logicalId, source);
  return args && "none" in args ? args.none : null;
}

/** The generator's event for `args`, kept under .lab/events/ by SAM CLI version and arguments. */
function generatedEvent(args: string[]): Event {
  const key = createHash("sha256")
    .update(JSON.stringify([samCliVersion(), args]))
    .digest("hex")
    .slice(0, 32);
  const file = join(GENERATED_DIR, `${key}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as Event;
  mkdirSync(GENERATED_DIR, { recursive: true });
  const event = JSON.parse(samGenerateEvent(args, GENERATED_DIR)) as Event; // a folder without samconfig.toml
  // Renamed into place: a process reading it meanwhile (parallel tests) never sees half of it.
  const partial = `${file}.${process.pid}`;
  writeFileSync(partial, JSON.stringify(event));
  renameSync(partial, file);
  return event;
}

/** The value a request gives each parameter of a route's path ({id}, {proxy+}): one a handler can parse as a number too. */
const PATH_PARAMETER_VALUE = "1";
const PATH_PARAMETER = /\{([^}+]+)\+?\}/g;

/** A route's path as a request's (`/items/{id}` → `/items/1`), and the parameters API Gateway reads from it. */
function routeRequestPath(route: string): { path: string; pathParameters: Query | null } {
  const names = [...route.matchAll(PATH_PARAMETER)].map((match) => match[1]!);
  return {
    path: route.replace(PATH_PARAMETER, PATH_PARAMETER_VALUE),
    pathParameters: names.length ? Object.fromEntries(names.map((name) => [name, PATH_PARAMETER_VALUE])) : null,
  };
}

/** An HTTP API (payload 2.0) request with `query` as its whole query string. */
function httpApiQuery(request: Event, query: Query): Event {
  const { queryStringParameters: _generated, ...event } = request;
  const rawQueryString = new URLSearchParams(query).toString();
  return { ...event, rawQueryString, ...(rawQueryString ? { queryStringParameters: query } : {}) };
}

/** An HTTP API (payload 2.0) request made the event of its route (null: the catch-all), with `query` as its whole query string. */
function httpApiRoute(request: Event, method: string, route: string | null, query: Query): Event {
  const { pathParameters: _example, ...event } = httpApiQuery(request, query);
  const routeKey = route === null ? "$default" : `${method} ${route}`;
  const { path, pathParameters } = routeRequestPath(route ?? String(event.rawPath));
  const context = event.requestContext as Event & { http: Event };
  return {
    ...event,
    routeKey,
    rawPath: path,
    ...(route !== null && pathParameters ? { pathParameters } : {}),
    requestContext: { ...context, routeKey, http: { ...context.http, path } },
  };
}

/** A REST API (payload 1.0) request of its resource's path, with `query` as its whole query string (null without one, as API Gateway sends it). */
function restApiRequest(request: Event, resource: string | null, query: Query): Event {
  const entries = Object.entries(query);
  const { path, pathParameters } = resource === null ? { path: request.path, pathParameters: request.pathParameters } : routeRequestPath(resource);
  return {
    ...request,
    path,
    pathParameters,
    queryStringParameters: entries.length ? query : null,
    multiValueQueryStringParameters: entries.length ? Object.fromEntries(entries.map(([name, value]) => [name, [value]])) : null,
  };
}

/** The sample event as API Gateway would send it for GET `route` (null: the catch-all, $default) with `query` (e.g. { calls: "10" }). */
export function routeEvent(route: string | null, query: Query = {}): Event {
  return httpApiRoute(JSON.parse(readFileSync(SAMPLE_EVENT, "utf8")) as Event, "GET", route, query);
}

/** The event a JSON file holds; `what` names it in the error a user reads (e.g. --event). */
export function eventFile(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(`${what} ${file}: ${errorMessage(error)}`, { cause: error });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what} ${file} is not JSON: ${errorMessage(error)}`, { cause: error });
  }
}

/** An API request's own event with `query` as its whole query string; any other event as it is. */
function withQuery(event: Event, query: Query): Event {
  if (!Object.keys(query).length) return event;
  if (event.version === "2.0") return httpApiQuery(event, query);
  return "httpMethod" in event ? restApiRequest(event, null, query) : event;
}

/** Which event functionEvent gives a function, in words a report can quote. */
export function eventOrigin(fn: Pick<TemplateFunction, "logicalId" | "eventSource" | "sampleEvent">): string {
  if (fn.sampleEvent) return `the app's own sample ${fn.sampleEvent}`;
  const why = whyNoEvent(fn);
  if (why) return `{} (${why})`;
  const { type, name } = fn.eventSource!;
  if (MADE[type]) return `an event shaped for its ${type} trigger ${name}, as AWS documents it`;
  if (inputOf(fn.eventSource!) !== undefined) return `the Input its ${type} trigger ${name} gives`;
  return `an event shaped for its ${type} trigger ${name} (sam local generate-event)`;
}

/** How to give a function the event it should get: the one line every "for want of" says. */
const giveOne = (logicalId: string) =>
  `give one in events/${logicalId}.json beside the template (the doctor, npx warpstart invoke and the bench send it), or to one invoke with --event FILE`;

/**
 * What a command that sends a function its event without --event says of it, once (null:
 * nothing): that it sent {} for want of an event, or what of the event is a placeholder, and
 * how to give the real one.
 */
export function eventNote(fn: Pick<TemplateFunction, "logicalId" | "eventSource" | "sampleEvent">): string | null {
  if (fn.sampleEvent) return null;
  const why = whyNoEvent(fn);
  if (why) return `sent {} for want of an event (${why}): ${giveOne(fn.logicalId)}`;
  const placeholder = placeholderOf(fn.eventSource!);
  return placeholder && `${placeholder}: ${giveOne(fn.logicalId)}`;
}

/**
 * A template function's event: the app's own sample of it (events/<LogicalId>.json), or else one
 * shaped for its first event source, {} for a function nothing triggers; `query` is an API
 * request's query string (the bench's calls), other events have none.
 */
export function functionEvent(fn: Pick<TemplateFunction, "logicalId" | "eventSource" | "sampleEvent">, query: Query = {}): Event {
  if (fn.sampleEvent) return withQuery(eventFile(fn.sampleEvent, `${fn.logicalId}'s sample event`) as Event, query);
  const source = fn.eventSource;
  if (!source || whyNoEvent(fn)) return {};
  const made = MADE[source.type];
  if (made) return made(source);
  const input = inputOf(source);
  if (input !== undefined) return input;
  const args = generateEventArgs(fn.logicalId, source) as string[] | null;
  if (!args) return withAuthorizer(routeEvent(routeOf(source).path!, query), source);
  const event = generatedEvent(args);
  const patterns = filterPatterns(source.properties);
  if (source.type === "DynamoDB") return filteredEvent(withTableKeys(event, source.references.Stream), patterns);
  if (source.type !== "Api" && source.type !== "HttpApi") return filteredEvent(event, patterns);
  const { method, path } = routeOf(source);
  const request = source.type === "Api" || isPayload1(source) ? restApiRequest(event, path, query) : httpApiRoute(event, method, path, query);
  return withAuthorizer(withTextBody(request, method), source);
}

/**
 * SAM's sample request carries a JSON body base64-encoded (isBase64Encoded), which API Gateway
 * sends only for a binary media type: here it is the text a JSON request sends, and a GET has none.
 */
function withTextBody(request: Event, method: string): Event {
  if (method === "GET") return { ...request, body: null, isBase64Encoded: false };
  if (request.isBase64Encoded !== true || typeof request.body !== "string") return request;
  return { ...request, body: Buffer.from(request.body, "base64").toString("utf8"), isBase64Encoded: false };
}

/** The generator's key value (101), in each type a key attribute may have. */
const KEY_VALUES: Record<string, string> = { S: "101", N: "101", B: Buffer.from("101").toString("base64") };

/**
 * SAM's stream records key their item by Id, a number, whatever the table: given the keys of the
 * table's own KeySchema instead, so that the item they name can be the table's (and is, in the lab).
 */
function withTableKeys(event: Event, table: TemplateResource | undefined): Event {
  const { KeySchema: schema, AttributeDefinitions: definitions } = (table?.properties ?? {}) as Record<string, unknown>;
  if (!Array.isArray(schema) || !Array.isArray(definitions)) return event;
  const typeOf = (name: unknown) => String((definitions as Event[]).find((definition) => definition.AttributeName === name)?.AttributeType ?? "S");
  const keys = Object.fromEntries((schema as Event[]).map(({ AttributeName: name }) => [String(name), { [typeOf(name)]: KEY_VALUES[typeOf(name)] ?? "101" }]));
  const records = ((event.Records ?? []) as Event[]).map((record) => {
    const stream = record.dynamodb as Record<string, Event | undefined>;
    const generated = Object.keys(stream.Keys ?? {});
    const image = (name: string) => {
      const attributes = stream[name];
      if (!attributes) return {};
      return { [name]: { ...Object.fromEntries(Object.entries(attributes).filter(([attribute]) => !generated.includes(attribute))), ...keys } };
    };
    return { ...record, dynamodb: { ...stream, Keys: keys, ...image("NewImage"), ...image("OldImage") } };
  });
  return { ...event, Records: records };
}

/** The types whose generated event names data that exists before the event is sent: an S3 object, a DynamoDB item. */
const NAMES_DATA = ["S3", "DynamoDB"];

/**
 * What a function's generated event says exists, for the lab to put into the local AWS before it
 * is sent (lab/lab.mts): S3 sends its event once the object is stored, a DynamoDB stream once the
 * item is written. None for an event the app gives (events/<LogicalId>.json) or another trigger:
 * an SQS or SNS event carries its message, and nothing it names is read back.
 */
export function eventDataOf(fn: Pick<TemplateFunction, "logicalId" | "eventSource" | "sampleEvent">): EventData[] {
  if (fn.sampleEvent || !fn.eventSource || !NAMES_DATA.includes(fn.eventSource.type)) return [];
  const { Records: records = [] } = functionEvent(fn) as { Records?: Event[] };
  // One datum per object or item, the last record's: SAM's stream event inserts an item, then
  // changes it (then removes it, which the lab leaves out: a handler reads back what it wrote).
  const data = new Map<string, EventData>();
  for (const datum of records.flatMap(recordData(fn.logicalId)))
    data.set(JSON.stringify("bucket" in datum ? [datum.bucket, datum.key] : [datum.table, keysOf(datum.item, records)]), datum);
  return [...data.values()];
}

/** What one record of an event says exists. */
const recordData =
  (logicalId: string) =>
  (record: Event): EventData[] => {
    const s3 = record.s3 as { bucket?: { name?: string }; object?: { key?: string } } | undefined;
    // S3 writes a key URL-encoded, a space as +.
    if (s3?.bucket?.name && s3.object?.key)
      return [{ function: logicalId, bucket: s3.bucket.name, key: decodeURIComponent(s3.object.key.replace(/\+/g, " ")) }];
    const stream = record.dynamodb as { Keys?: Event; NewImage?: Event } | undefined;
    const table = tableOfStream(String(record.eventSourceARN ?? ""));
    if (stream?.NewImage && stream.Keys && table) return [{ function: logicalId, table, item: { ...stream.NewImage, ...stream.Keys } }];
    return [];
  };

/** An item's key attributes, by the names the records' Keys give. */
function keysOf(item: Record<string, unknown>, records: Event[]): unknown {
  const names = new Set(records.flatMap((record) => Object.keys((record.dynamodb as { Keys?: Event } | undefined)?.Keys ?? {})));
  return [...names].sort().map((name) => item[name]);
}
