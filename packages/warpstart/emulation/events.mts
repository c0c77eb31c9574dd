// The event a template function gets when none is given (`npm run invoke` without --event, the
// bench, the doctor, the tests): one shaped for its first event source, as SAM CLI's own
// `sam local generate-event` makes it, with the template's names filled in where the generator
// takes them. A GET route of an HTTP API gets http-api.json (beside this file) instead, the request API
// Gateway sends for a GET (`sam local invoke -e` takes it too); the generator's is a POST with a
// body. Generated events are kept under .lab/events/: SAM CLI takes a second to start, and the
// bench sends the same event every round.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { errorMessage, UsageError } from "../core/cli.mts";
import { STATE_DIR } from "../core/paths.mts";
import type { TemplateEventSource, TemplateFunction, TemplateResource } from "../core/template.mts";
import { type EventData, madeUpName } from "./local-aws/resources.mts";
import { samCliVersion, samGenerateEvent } from "./sam-cli.mts";

export const SAMPLE_EVENT = join(import.meta.dirname, "http-api.json");
const GENERATED_DIR = join(STATE_DIR, "events");

type Event = Record<string, unknown>;
type Query = Record<string, string>;

/** A function whose trigger SAM CLI makes no event for: its event has to be given. */
class UnknownEventSource extends UsageError {
  override name = "UnknownEventSource";
}

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
  HttpApi: (source) => ["apigateway", "http-api-proxy", ...requestOptions(source)],
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

function isGetRoute(source: TemplateEventSource): boolean {
  const { method, path } = routeOf(source);
  return source.type === "HttpApi" && method === "GET" && path !== null;
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
  const given = resource?.properties[NAME_PROPERTY[resource.type] ?? ""];
  if (typeof given === "string") return given;
  return resource ? madeUpName(resource.type, resource.logicalId) : `warpstart-lab-${logicalId}${source.name}`;
}

/**
 * The `sam local generate-event` arguments for a function's event source, the template's names
 * filled in; null for a GET route of an HTTP API, whose event is SAMPLE_EVENT. A type the
 * generator has no event for is an error that says what to do.
 */
export function generateEventArgs(logicalId: string, source: TemplateEventSource): string[] | null {
  if (isGetRoute(source)) return null;
  const unknown = (what: string) =>
    new UnknownEventSource(
      `${logicalId}: ${what}, which SAM CLI's generate-event has no event for: give the event as a JSON file, npx warpstart invoke ${logicalId} --event <file>`,
    );
  const generator = GENERATORS[source.type];
  if (!generator) throw unknown(`its first event source, ${source.name}, is of type ${source.type}`);
  const args = generator(source, (property, fromArn) => nameOf(logicalId, source, property, fromArn));
  if ("none" in args) throw unknown(args.none);
  return args;
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

/** The sample event as API Gateway would send it for GET `route` with `query` (e.g. { calls: "10" }). */
export function routeEvent(route: string, query: Query = {}): Event {
  return httpApiRoute(JSON.parse(readFileSync(SAMPLE_EVENT, "utf8")) as Event, "GET", route, query);
}

/** The event a JSON file holds; `what` names it in the error a user reads (e.g. --event). */
export function eventFile(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(`${what} ${file}: ${errorMessage(error)}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what} ${file} is not JSON: ${errorMessage(error)}`);
  }
}

/** An API request's own event with `query` as its whole query string; any other event as it is. */
function withQuery(event: Event, query: Query): Event {
  if (!Object.keys(query).length) return event;
  if (event.version === "2.0") return httpApiQuery(event, query);
  return "httpMethod" in event ? restApiRequest(event, null, query) : event;
}

/** Which event functionEvent gives a function, in words a report can quote. */
export function eventOrigin(fn: Pick<TemplateFunction, "eventSource" | "sampleEvent">): string {
  if (fn.sampleEvent) return `the app's own sample ${fn.sampleEvent}`;
  if (!fn.eventSource) return "{} (no event source in the template)";
  return `an event shaped for its ${fn.eventSource.type} trigger ${fn.eventSource.name} (sam local generate-event)`;
}

/**
 * A template function's event: the app's own sample of it (events/<LogicalId>.json), or else one
 * shaped for its first event source, {} for a function nothing triggers; `query` is an API
 * request's query string (the bench's calls), other events have none.
 */
export function functionEvent(fn: Pick<TemplateFunction, "logicalId" | "eventSource" | "sampleEvent">, query: Query = {}): Event {
  if (fn.sampleEvent) return withQuery(eventFile(fn.sampleEvent, `${fn.logicalId}'s sample event`) as Event, query);
  const source = fn.eventSource;
  if (!source) return {};
  const args = generateEventArgs(fn.logicalId, source);
  if (!args) return routeEvent(routeOf(source).path!, query);
  const event = generatedEvent(args);
  if (source.type === "DynamoDB") return withTableKeys(event, source.references.Stream);
  if (source.type !== "Api" && source.type !== "HttpApi") return event;
  const { method, path } = routeOf(source);
  return source.type === "Api" ? restApiRequest(event, path, query) : httpApiRoute(event, method, path, query);
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
