// A template's resources in the local AWS, made as CloudFormation would make them: moto's own
// CloudFormation creates one stack (seed.py) of every resource whose type it implements, SAM-only
// types converted first, parameters given, intrinsics between resources evaluated by moto; the
// secrets, which it lacks, are made through their API. What the lab serves itself (functions,
// layers, APIs) stays out of the stack: Ref and Fn::GetAtt of it answer what the lab knows. Then
// the data: what generated events say exists (lab/lab.mts), and the app's seed folder (seeds.mts).
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse } from "yaml";
import { VENV_BIN } from "../../core/paths.mts";
import { spawnOwned } from "../../core/processes.mts";
import {
  isCustomResource,
  NAMED_TYPES,
  parameterHint,
  type ResourceAttributes,
  type SamTemplate,
  type TemplateResource,
  type TemplateResourceEntry,
} from "../../core/template.mts";
import { LOCAL_REGION, type LocalAws } from "./local-aws.mts";
import { readSeeds } from "./seeds.mts";

/** The stack the lab creates a template's resources as (core/template.mts's AWS::StackName). */
const LAB_STACK = "warpstart-lab";

/**
 * The name the lab gives a bucket or table the template names not: CloudFormation's made-up name
 * without its random suffix, so that an event generated before the lab starts (emulation/events.mts)
 * names what the lab creates. A bucket's name is lower case, as CloudFormation makes it; a nested
 * application's resource (Application/LogicalId) is named after both, as its nested stack's are.
 */
export function madeUpName(type: string, logicalId: string): string {
  const name = `${LAB_STACK}-${logicalId.replaceAll("/", "-")}`;
  return type === "AWS::S3::Bucket" ? name.toLowerCase().slice(0, 63) : name;
}
/** An id of `length` characters from [a-z0-9], the same for the same `seed` (an API's id, a request's, a function URL's). */
export const madeUpId = (seed: string, length: number) =>
  BigInt(`0x${createHash("sha256").update(seed).digest("hex")}`)
    .toString(36)
    .slice(0, length);

/** The domain of the function URL an AWS::Lambda::Url (or SAM's <Function>Url) gets: the same in its FunctionUrl and in the requests the lab makes for it. */
export const functionUrlDomain = (urlLogicalId: string) => `${madeUpId(urlLogicalId, 32)}.lambda-url.${LOCAL_REGION}.on.aws`;

const NAMED_BY_THE_LAB = ["AWS::S3::Bucket", "AWS::DynamoDB::Table", "AWS::Serverless::SimpleTable"];

/** What a generated event says exists, which the lab puts into the local AWS before the app's seeds (lab/lab.mts). */
export type EventData = { function: string } & ({ bucket: string; key: string } | { table: string; item: Record<string, unknown> });

/** For messages: what the local AWS holds of a template. */
export const WHAT_THE_LAB_CREATES = "only the template's resources that moto's CloudFormation can create, and its secrets";

/** The id of the one HTTP API the lab serves (lab/http-api.mts): what Ref of any API of the template answers. */
const LAB_API_ID = "warpstartlab";
/** The APIs SAM makes for functions' Api and HttpApi events when the template declares none. */
const IMPLICIT_APIS = ["ServerlessHttpApi", "ServerlessRestApi"];

/** What the lab runs itself, never sent to the local AWS. */
const servedByTheLab = (type: string) =>
  ["AWS::Serverless::Function", "AWS::Serverless::LayerVersion", "AWS::Serverless::HttpApi", "AWS::Serverless::Api"].includes(type) ||
  /^AWS::(Lambda|ApiGateway|ApiGatewayV2)::/.test(type);

/** Access grants: moto enforces none, so nothing the lab runs fails without them. */
const NOT_ENFORCED = new Set(["AWS::SQS::QueuePolicy", "AWS::SNS::TopicPolicy", "AWS::S3::BucketPolicy", "AWS::Serverless::Connector"]);

const SECRET = "AWS::SecretsManager::Secret";

/** What Ref and Fn::GetAtt of something the lab serves answer: the names it serves them by. */
function servedAttributes(logicalId: string, type: string, region: string, account: string): ResourceAttributes | undefined {
  if (type === "AWS::Serverless::Function" || type === "AWS::Lambda::Function")
    return { Ref: logicalId, Arn: `arn:aws:lambda:${region}:${account}:function:${logicalId}` };
  if (type === "AWS::Serverless::LayerVersion" || type === "AWS::Lambda::LayerVersion")
    return { Ref: `arn:aws:lambda:${region}:${account}:layer:${logicalId}:1` };
  if (type === "AWS::Lambda::Url") return { FunctionUrl: `https://${functionUrlDomain(logicalId)}/` };
  if (/^AWS::(Serverless::(HttpApi|Api)|ApiGateway::RestApi|ApiGatewayV2::Api)$/.test(type))
    return { Ref: LAB_API_ID, ApiEndpoint: `https://${LAB_API_ID}.execute-api.${region}.amazonaws.com` };
  return undefined;
}

/** A resource as the stack gets it: a CloudFormation type moto may implement. */
interface StackResource {
  Type: string;
  Properties: Record<string, unknown>;
  DependsOn?: unknown;
}

/** One resource not created, and why (moto's reason, or the lab's). */
interface NotCreated {
  logicalId: string;
  type: string;
  reason: string;
}

const attributeTypes: Record<string, string> = { String: "S", Number: "N", Binary: "B" };
const tagList = (tags: unknown) =>
  tags && typeof tags === "object" && !Array.isArray(tags) ? Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) : tags;
const defined = (properties: Record<string, unknown>) => Object.fromEntries(Object.entries(properties).filter(([, value]) => value !== undefined));

/** AWS::Serverless::SimpleTable as SAM translates it: a DynamoDB table keyed by PrimaryKey, on demand unless throughput is given. */
function simpleTable(properties: Record<string, unknown>): StackResource {
  const key = (properties.PrimaryKey ?? { Name: "id", Type: "String" }) as { Name: unknown; Type?: unknown };
  const keyType = key.Type ?? "String";
  return {
    Type: "AWS::DynamoDB::Table",
    Properties: defined({
      TableName: properties.TableName,
      KeySchema: [{ AttributeName: key.Name, KeyType: "HASH" }],
      AttributeDefinitions: [{ AttributeName: key.Name, AttributeType: typeof keyType === "string" ? (attributeTypes[keyType] ?? keyType) : keyType }],
      BillingMode: properties.ProvisionedThroughput ? "PROVISIONED" : "PAY_PER_REQUEST",
      ProvisionedThroughput: properties.ProvisionedThroughput,
      SSESpecification: properties.SSESpecification,
      Tags: tagList(properties.Tags),
    }),
  };
}

/** A state machine's definition as moto takes it, a DefinitionString (it reads neither Definition nor DefinitionSubstitutions), substituted by Fn::Sub. */
const definitionString = (text: unknown, substitutions: unknown) => (substitutions ? { "Fn::Sub": [text, substitutions] } : text);

/**
 * AWS::Serverless::StateMachine as moto's AWS::StepFunctions::StateMachine takes it: the definition
 * (inline, or a local DefinitionUri) as DefinitionString, its substitutions made by Fn::Sub. Its
 * role is a name only: nothing in the local AWS checks what a role allows.
 */
function stateMachine(logicalId: string, properties: Record<string, unknown>, templateDir: string, account: string): StackResource | string {
  let definition = properties.Definition;
  if (definition === undefined && typeof properties.DefinitionUri === "string") {
    try {
      definition = parse(readFileSync(resolve(templateDir, properties.DefinitionUri), "utf8"));
    } catch (error) {
      return `cannot read its DefinitionUri: ${(error as Error).message}`;
    }
  }
  if (definition === undefined) return "its definition is in S3 (DefinitionUri): the lab reads Definition or a DefinitionUri of a local file";
  return {
    Type: "AWS::StepFunctions::StateMachine",
    Properties: defined({
      StateMachineName: properties.Name,
      StateMachineType: properties.Type,
      DefinitionString: definitionString(JSON.stringify(definition), properties.DefinitionSubstitutions),
      RoleArn: properties.Role ?? `arn:aws:iam::${account}:role/${logicalId}Role`,
      Tags: tagList(properties.Tags),
    }),
  };
}

/** The resource as CloudFormation gets it (SAM-only types converted), or why the lab cannot give it to moto. */
function stackResource(
  resource: TemplateResource,
  entry: TemplateResourceEntry & { DependsOn?: unknown },
  templateDir: string,
  account: string,
): StackResource | string {
  const { logicalId, type } = resource;
  const properties = structuredClone(resource.properties);
  const dependsOn = entry.DependsOn === undefined ? {} : { DependsOn: entry.DependsOn };
  if (type === "AWS::Serverless::SimpleTable") return { ...simpleTable(properties), ...dependsOn };
  if (type === "AWS::Serverless::StateMachine") {
    const converted = stateMachine(logicalId, properties, templateDir, account);
    return typeof converted === "string" ? converted : { ...converted, ...dependsOn };
  }
  if (type === "AWS::StepFunctions::StateMachine") {
    const { Definition, DefinitionSubstitutions, ...rest } = properties;
    if (Definition !== undefined)
      return { Type: type, Properties: { ...rest, DefinitionString: definitionString(JSON.stringify(Definition), DefinitionSubstitutions) }, ...dependsOn };
    if (typeof rest.DefinitionString === "string")
      return { Type: type, Properties: { ...rest, DefinitionString: definitionString(rest.DefinitionString, DefinitionSubstitutions) }, ...dependsOn };
  }
  if (type.startsWith("AWS::Serverless::")) return "a SAM type the lab does not convert to CloudFormation";
  if (isCustomResource(type)) return "a custom resource whose provider is not one of the template's functions";
  return { Type: type, Properties: properties, ...dependsOn };
}

/** AWS::SNS::Subscription, which moto's CloudFormation lacks, as the Subscription of its topic (which it implements) when that is in the stack. */
function subscribeOnTheirTopics(resources: Record<string, StackResource>): void {
  for (const [logicalId, resource] of Object.entries(resources)) {
    if (resource.Type !== "AWS::SNS::Subscription") continue;
    const topicId = (resource.Properties.TopicArn as { Ref?: unknown } | undefined)?.Ref;
    const topic = typeof topicId === "string" ? resources[topicId] : undefined;
    if (topic?.Type !== "AWS::SNS::Topic") continue;
    const { Endpoint, Protocol } = resource.Properties;
    topic.Properties.Subscription = [...((topic.Properties.Subscription as unknown[] | undefined) ?? []), { Endpoint, Protocol }];
    delete resources[logicalId];
  }
}

/** Every Ref, Fn::GetAtt and Fn::Sub reference of a value: the attributes ("Ref" for Ref) asked of each logical id. */
function referencesIn(value: unknown, found = new Map<string, Set<string>>()): Map<string, Set<string>> {
  const add = (logicalId: string, attribute: string) => {
    if (!logicalId.startsWith("AWS::")) found.set(logicalId, (found.get(logicalId) ?? new Set()).add(attribute));
  };
  if (Array.isArray(value)) {
    for (const item of value) referencesIn(item, found);
  } else if (value && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      if (key === "Ref" && typeof inner === "string") add(inner, "Ref");
      else if (key === "Fn::GetAtt") {
        const [logicalId, ...attribute] = typeof inner === "string" ? inner.split(".") : (inner as unknown[]).map(String);
        add(logicalId!, attribute.join("."));
      } else if (key === "Fn::Sub") {
        const [text, variables = {}] = typeof inner === "string" ? [inner] : (inner as [string, Record<string, unknown>]);
        for (const [, name] of String(text).matchAll(/\$\{([^}!][^}]*)\}/g)) {
          if (name! in variables) continue;
          const [logicalId, ...attribute] = name!.split(".");
          add(logicalId!, attribute.length ? attribute.join(".") : "Ref");
        }
        referencesIn(variables, found);
      } else referencesIn(inner, found);
    }
  }
  return found;
}

/** A parameter as moto takes it, with its value (override or default; null: none). */
function parameter(template: SamTemplate, name: string, definition: Record<string, unknown>) {
  let value: unknown = null;
  try {
    value = template.resolve({ Ref: name });
  } catch {
    // No Default and no value: createResources names it in a line of its own.
  }
  // The lab has no Parameter Store value to resolve an SSM-typed parameter with: its Ref is the path, as template.resolve answers.
  const type = String(definition.Type ?? "String").startsWith("AWS::SSM::Parameter::") ? "String" : definition.Type;
  return {
    definition: { ...definition, Type: type },
    value: value === undefined || value === null ? null : Array.isArray(value) ? value.join(",") : String(value),
  };
}

/** The one line naming what was not created, with why, and what that means for the functions; null when everything was. */
function notCreatedLine(notCreated: NotCreated[]): string | null {
  if (!notCreated.length) return null;
  const named = (list: NotCreated[]) => list.map(({ logicalId, type, reason }) => `${logicalId} (${type}: ${reason.replace(/\s+/g, " ").trim()})`).join(", ");
  const custom = notCreated.filter(({ type }) => isCustomResource(type));
  const called = notCreated.filter(({ type }) => !isCustomResource(type));
  const clauses = [
    ...(called.length ? [`${named(called)}: a function that calls ${called.length === 1 ? "it" : "them"} fails in the lab`] : []),
    ...(custom.length ? [`${named(custom)}: nothing the lab runs answers ${custom.length === 1 ? "its requests" : "their requests"}`] : []),
  ];
  return `The lab's local AWS did not create ${clauses.join("; nor ")}.`;
}

export interface CreatedResources {
  /** Ref and Fn::GetAtt values by logical id, for evaluating the template's references. */
  attributes: Record<string, ResourceAttributes>;
  /** One line naming what the lab did not create, with why (null when it created everything). */
  notCreated: string | null;
  /** A line for each parameter without a value, each seed file the lab could not load, each generated event's data it could not put. */
  problems: string[];
}

interface SeedAnswer {
  attributes: Record<string, ResourceAttributes>;
  notCreated: NotCreated[];
  problems: string[];
}

/** The value with each Fn::ImportValue replaced by its value (local-aws/exports.json); one without a value throws its line. */
function withImports(value: unknown, template: SamTemplate): unknown {
  if (Array.isArray(value)) return value.map((item) => withImports(item, template));
  if (!value || typeof value !== "object") return value;
  const entries = Object.entries(value);
  if (entries.length === 1 && entries[0]![0] === "Fn::ImportValue") return template.resolve(value);
  return Object.fromEntries(entries.map(([key, inner]) => [key, withImports(inner, template)]));
}

/** seed.py, started: it loads moto's CloudFormation (over a second) until its request comes on stdin. */
export interface Seeder {
  /** Sends the request; resolves with its JSON answer. */
  seed(request: unknown): Promise<SeedAnswer>;
  /** Ends it unasked. */
  stop(): void;
}

/** Starts seed.py, ahead of its request where the caller knows one will come (the local AWS of a sam build's builds). */
export function startSeeder(venvBin: string = VENV_BIN): Seeder {
  const child = spawnOwned(join(venvBin, "python"), [join(import.meta.dirname, "seed.py")], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, PYTHONWARNINGS: "ignore" },
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout!.on("data", (chunk: Buffer) => out.push(chunk));
  child.stderr!.on("data", (chunk: Buffer) => err.push(chunk));
  child.stdin!.on("error", () => {}); // one that ended early says why on exit
  const answer = new Promise<SeedAnswer>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) return resolve(JSON.parse(Buffer.concat(out).toString("utf8")) as SeedAnswer);
      reject(new Error(`the local AWS could not create the template's resources: ${Buffer.concat(err).toString("utf8").trim().split("\n").pop()}`));
    });
  });
  answer.catch(() => {}); // its failure is the seed's to report
  return {
    seed: (request) => {
      child.stdin!.end(JSON.stringify(request));
      return answer;
    },
    stop: () => void child.kill(),
  };
}

/**
 * Creates the template's resources in the local AWS as the stack `AWS::StackName` (replacing an
 * earlier template's): every resource moto's CloudFormation can create, with the names it makes
 * up for those without one. Answers Ref and Fn::GetAtt of each as the template uses them (of
 * what the lab serves too), and names in one line what was not created, with moto's reason.
 */
export async function createResources(
  template: SamTemplate,
  aws: Pick<LocalAws, "endpoint" | "caFile">,
  { venvBin = VENV_BIN, eventData = [], seeder }: { venvBin?: string; eventData?: EventData[]; seeder?: Seeder } = {},
): Promise<CreatedResources> {
  let taken = false;
  const seed = (request: unknown) => {
    taken = true;
    return (seeder ?? startSeeder(venvBin)).seed(request);
  };
  try {
    return await resourcesOf(template, aws, eventData, seed);
  } finally {
    if (seeder && !taken) seeder.stop(); // a template with nothing to seed
  }
}

async function resourcesOf(
  template: SamTemplate,
  aws: Pick<LocalAws, "endpoint" | "caFile">,
  eventData: EventData[],
  seed: Seeder["seed"],
): Promise<CreatedResources> {
  const { raw } = template;
  const pseudo = (name: string) => String(template.resolve({ Ref: `AWS::${name}` }));
  const [region, account, stackName] = [LOCAL_REGION, pseudo("AccountId"), pseudo("StackName")];
  const wanted = referencesIn(raw);
  const literals: Record<string, ResourceAttributes> = {};
  const served = [
    ...template.functions.map((fn) => ({ logicalId: fn.logicalId, type: "AWS::Serverless::Function" })),
    ...template.resources.filter((resource) => servedByTheLab(resource.type)),
    ...IMPLICIT_APIS.filter((logicalId) => !(logicalId in raw.Resources)).map((logicalId) => ({ logicalId, type: "AWS::Serverless::HttpApi" })),
    // SAM's URL of a function with a FunctionUrlConfig: only a template that gives one refers to it.
    ...template.functions
      .map(({ logicalId }) => `${logicalId}Url`)
      .filter((logicalId) => !(logicalId in raw.Resources))
      .map((logicalId) => ({ logicalId, type: "AWS::Lambda::Url" })),
  ];
  for (const { logicalId, type } of served) {
    const attributes = servedAttributes(logicalId, type, region, account);
    if (attributes && wanted.has(logicalId)) literals[logicalId] = attributes;
  }

  const resources: Record<string, StackResource> = {};
  const secrets: { logicalId: string; properties: unknown }[] = [];
  const notCreated: NotCreated[] = [];
  for (const written of template.resources) {
    const { logicalId, type } = written;
    if (servedByTheLab(type) || NOT_ENFORCED.has(type)) continue;
    // The lab sends its provider the Create request when it serves that function (lab/lab.mts); a provider of its own it has none of.
    if (template.customResources.some(({ source }) => source.name === logicalId)) continue;
    let resource: TemplateResource;
    try {
      resource = { ...written, properties: withImports(written.properties, template) as Record<string, unknown> };
    } catch (error) {
      notCreated.push({ logicalId, type, reason: (error as Error).message });
      continue;
    }
    const nameProperty = NAMED_TYPES[type]?.nameProperty;
    if (NAMED_BY_THE_LAB.includes(type) && nameProperty && resource.properties[nameProperty] === undefined)
      resource.properties = { ...resource.properties, [nameProperty]: madeUpName(type, logicalId) };
    if (type === SECRET) {
      // Made before the stack, so that the stack's resources can refer to them: what they refer to must be known by then.
      try {
        secrets.push({ logicalId, properties: template.resolve(resource.properties, literals) });
      } catch (error) {
        notCreated.push({ logicalId, type, reason: `${(error as Error).message}, and the lab makes secrets before the other resources` });
      }
      continue;
    }
    const converted = stackResource(resource, raw.Resources[logicalId]!, dirname(template.file), account);
    if (typeof converted === "string") notCreated.push({ logicalId, type, reason: converted });
    else resources[logicalId] = converted;
  }
  subscribeOnTheirTopics(resources);

  const parameters = Object.fromEntries(Object.entries(raw.Parameters ?? {}).map(([name, definition]) => [name, parameter(template, name, definition)]));
  const unvalued = Object.entries(parameters)
    .filter(([, { value }]) => value === null)
    .map(([name]) => `The template's parameter ${name} has no Default and no value: ${parameterHint(name)}; what needs it is not created.`);
  const { seeds, problems } = readSeeds(template.file, template.resources);
  let answer: SeedAnswer = { attributes: {}, notCreated: [], problems: [] };
  if (Object.keys(resources).length || secrets.length || eventData.length || Object.values(seeds).some((list) => list.length)) {
    const conditions = raw.Conditions ?? {};
    const conditionValue = (name: string) => {
      try {
        return Boolean(template.resolve({ Condition: name }));
      } catch {
        return false; // it reads a parameter without a value, which its own line names
      }
    };
    answer = await seed({
      endpoint: aws.endpoint,
      caFile: aws.caFile,
      region,
      stackName,
      resources,
      secrets,
      parameters,
      conditions,
      conditionValues: Object.fromEntries(Object.keys(conditions).map((name) => [name, conditionValue(name)])),
      mappings: raw.Mappings ?? {},
      literals,
      wanted: Object.fromEntries([...wanted].map(([logicalId, attributes]) => [logicalId, [...attributes]])),
      eventData,
      seeds,
    });
  }
  return {
    attributes: { ...literals, ...answer.attributes },
    notCreated: notCreatedLine([...notCreated, ...answer.notCreated]),
    problems: [...unvalued, ...problems, ...answer.problems],
  };
}
