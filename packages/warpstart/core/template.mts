// Reads SAM templates: the source template.yaml (short-form intrinsics like !Ref) and the one
// `sam build` writes. Lists the functions with their settings as Lambda would see them, and the
// other resources, with the intrinsic functions a local run can evaluate.
import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { type CollectionTag, parse, parseDocument, type ScalarTag } from "yaml";
import { sampleEventOf, seedDirOf } from "./paths.mts";

const INTRINSICS = [
  "Ref",
  "Condition",
  "Base64",
  "Cidr",
  "FindInMap",
  "GetAZs",
  "GetAtt",
  "If",
  "ImportValue",
  "Join",
  "Not",
  "Equals",
  "And",
  "Or",
  "Select",
  "Split",
  "Sub",
  "Transform",
];

// `!GetAtt A.B` is the one short form whose scalar becomes a list.
const fnName = (name: string) => (name === "Ref" || name === "Condition" ? name : `Fn::${name}`);
/** CloudFormation's short forms (`!Ref`, `!GetAtt`, ...) as the yaml library's custom tags, resolved to their long forms. */
export const CFN_TAGS: (ScalarTag | CollectionTag)[] = INTRINSICS.flatMap((name) => [
  { tag: `!${name}`, resolve: (value: string) => ({ [fnName(name)]: name === "GetAtt" ? value.split(".") : value }) } as ScalarTag,
  { tag: `!${name}`, collection: "seq", resolve: (seq: { toJSON(): unknown }) => ({ [fnName(name)]: seq.toJSON() }) } as unknown as CollectionTag,
  { tag: `!${name}`, collection: "map", resolve: (map: { toJSON(): unknown }) => ({ [fnName(name)]: map.toJSON() }) } as unknown as CollectionTag,
]);

export interface TemplateResourceEntry {
  Type: string;
  Condition?: string;
  DependsOn?: string | string[];
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
}

export type Template = {
  Parameters?: Record<string, { Default?: unknown }>;
  Mappings?: Record<string, Record<string, Record<string, unknown>>>;
  Conditions?: Record<string, unknown>;
  Globals?: { Function?: Record<string, unknown> };
  Resources: Record<string, TemplateResourceEntry>;
  [key: string]: unknown;
};

class TemplateError extends Error {
  override name = "TemplateError";
}

/** The templates whose repeated keys were said, once each per process. */
const toldRepeated = new Set<string>();

/**
 * A key a map of the template repeats: SAM reads it as PyYAML does, the last one counting, and so
 * does the pipeline; said once, since `sam validate --lint` calls it an error that SAM lets pass.
 */
function tellRepeatedKeys(text: string, file: string): void {
  if (toldRepeated.has(file)) return;
  toldRepeated.add(file);
  for (const { code, pos, linePos } of parseDocument(text, { customTags: CFN_TAGS }).errors) {
    if (code !== "DUPLICATE_KEY") continue;
    const key = /^[^:\n]+/.exec(text.slice(pos[0]))?.[0].trim();
    console.error(`warning: ${file}:${linePos?.[0].line}: ${key} repeats a key of its map: read as SAM reads it, the last one counts; keep one`);
  }
}

/**
 * A template as written: its YAML read as SAM reads it, nothing evaluated. `text` is the file's,
 * when the caller read it already (the text it will edit); else the file is read.
 */
export function templateAsWritten(file: string, text?: string): Template {
  if (text === undefined) {
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      throw new TemplateError(`cannot read the template ${file}: ${(error as Error).message}`, { cause: error });
    }
  }
  let template: unknown;
  try {
    template = parse(text, { customTags: CFN_TAGS, uniqueKeys: false });
  } catch (error) {
    throw new TemplateError(`${file} is not valid YAML: ${(error as Error).message}`, { cause: error });
  }
  tellRepeatedKeys(text, file);
  const resources = (template as Template | null)?.Resources;
  if (!resources || typeof resources !== "object") throw new TemplateError(`${file} is not a SAM template: it has no Resources section`);
  return template as Template;
}

export interface TemplateLayer {
  logicalId: string;
  contentDir: string;
}

export interface TemplateFunction {
  /** Its logical id; a nested application's function's is SAM's full path, Application/LogicalId (foldNested). */
  logicalId: string;
  /** The template that declares it: the one read, or a nested application's. */
  templateFile: string;
  /** CodeUri, resolved: the source folder in a source template, the artifact in a built one. */
  codeDir: string;
  handler: string;
  /** Absent when the template gives none (a container image's function). */
  runtime?: string;
  memoryMb: number;
  timeoutSeconds: number;
  architecture: string;
  /** Tracing: Active (X-Ray samples its invokes); PassThrough or none: false. */
  tracing: boolean;
  /** Environments to keep initialized (ProvisionedConcurrencyConfig, conditions evaluated): SAM attaches them to the alias. */
  provisionedConcurrency: number;
  /** AutoPublishAlias, e.g. live: the alias SAM publishes a version under, which its API events invoke (null: none, they invoke $LATEST). */
  alias: string | null;
  /** The GET route of its HttpApi event, e.g. /raw. */
  httpPath: string | null;
  /** Its first event source (Events, in template order): what triggers it, so the event it gets (emulation/events.mts); null: nothing does. */
  eventSource: TemplateEventSource | null;
  /** events/<LogicalId>.json of its app, if the app keeps one: the event it gets instead of one made for its event source. */
  sampleEvent: string | null;
  /** Its layers (AWS::Serverless::LayerVersion of the same template), in order: Lambda extracts them to /opt. */
  layers: TemplateLayer[];
  /** Its other layers, as written (a published layer's ARN): the lab cannot fetch them. */
  foreignLayers: string[];
  /** Metadata.BuildMethod, e.g. makefile, esbuild (null: SAM's default for the runtime). */
  buildMethod: string | null;
  /** Metadata.BuildProperties as written, intrinsics unevaluated (the builder reads Profile and Define). */
  buildProperties: Record<string, unknown>;
  /** Metadata.FloorOf: the function (logical id) this one is the Floor of, the same work with no SDK (null: none). */
  floorOf: string | null;
  /** Environment.Variables (Globals merged) as written: references to resources are evaluated where they exist (resolveWithResources). */
  environment: Record<string, unknown>;
  /** Why its code is not a folder on disk (null: it is): inline (the lab writes it out: inlineCode), or in S3. */
  whyNotOnDisk: string | null;
  /** Its code written in the template (InlineCode, Code.ZipFile), evaluated; null: none. The lab runs it as Lambda does, from index.js. */
  inlineCode: string | null;
  /** The app's function a doctor's copy of it (a fix built, a profile's build) is made from: Metadata[COPY_OF]; the values given for that function's variables are the copy's. */
  copyOf?: string;
}

/** The Metadata key that names the app's function a doctor's copy is made from (doctor/app-build.mts templateOfCopies). */
export const COPY_OF = "WarpstartCopyOf";

/** One entry of a function's Events, its properties evaluated leniently: references to resources stay as written. */
export interface TemplateEventSource {
  /**
   * Its key under Events, e.g. Upload; for an API's authorizer, the API's and the authorizer's, e.g.
   * HttpApi.LambdaAuthorizer; for another resource that invokes it (invokerOf), that resource's logical
   * id, and the route's or the state's, e.g. ChatApi.ConnectRoute, Workflow.Charge.
   */
  name: string;
  /**
   * Its SAM type, e.g. S3, SQS, HttpApi; ApiAuthorizer or HttpApiAuthorizer for a function an API's
   * Auth names as its authorizer; for a resource that invokes it: HttpApi (an ApiGatewayV2 HTTP route),
   * WebSocket (an ApiGatewayV2 WebSocket route), WebSocketAuthorizer (a WebSocket API's authorizer),
   * CustomResource, StepFunctionsTask, FunctionUrl, ScheduleV2 (an AWS::Scheduler::Schedule), Cognito
   * (a user pool's trigger), CodeDeployHook (a DeploymentPreference's PreTraffic or PostTraffic hook).
   */
  type: string;
  properties: Record<string, unknown>;
  /** The template resource a property is a Ref or Fn::GetAtt of (e.g. Bucket: !Ref Uploads), by property, its properties evaluated the same way. */
  references: Record<string, TemplateResource>;
}

/** Any other resource of the template (its condition, if any, holds), properties as written. */
export interface TemplateResource {
  logicalId: string;
  type: string;
  properties: Record<string, unknown>;
}

/** What a created resource answers to Ref and Fn::GetAtt (Ref under "Ref"). */
export type ResourceAttributes = Record<string, string>;

export interface SamTemplate {
  file: string;
  /** The template as read, its local nested applications folded in (foldNested): what the local AWS creates. */
  raw: Template;
  functions: TemplateFunction[];
  resources: TemplateResource[];
  /** Its custom resources whose provider is one of its functions, in template order: CloudFormation sends them their Create request as it creates the stack. */
  customResources: CustomResource[];
  /**
   * Evaluates the intrinsics in `value` that a local run can: parameters (override or default),
   * pseudo parameters, conditions, Fn::If/FindInMap/Join/Sub/Select/Split, and with `created`,
   * Ref and Fn::GetAtt of resources. A reference it cannot evaluate is an error naming it, or with
   * `placeholder`, what that gives for it (it is handed the reference as a user writes it:
   * !GetAtt Cache.RedisEndpoint.Address, !Ref Queue, the parameter Stage, Fn::ImportValue shared-vpc).
   */
  resolve(value: unknown, created?: Record<string, ResourceAttributes>, placeholder?: (reference: string) => string): unknown;
}

/** A custom resource whose ServiceToken names one of the template's functions: its provider. */
export interface CustomResource {
  provider: string;
  /** The resource as the event source of its provider's requests (emulation/events.mts makes them). */
  source: TemplateEventSource;
}

const NO_VALUE = Symbol("AWS::NoValue");
/** What the pseudo parameters are in the lab (its stack, account and region). */
export const PSEUDO_PARAMETERS: Record<string, string> = {
  "AWS::Region": "us-east-1",
  "AWS::AccountId": "123456789012",
  "AWS::Partition": "aws",
  "AWS::URLSuffix": "amazonaws.com",
  "AWS::StackName": "warpstart-lab",
  "AWS::StackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/warpstart-lab/00000000-0000-0000-0000-000000000000",
};

class Unresolvable extends Error {}

/** What an app gives the lab beyond its template: its parameters' values, and the values of the exports its Fn::ImportValue reads. */
interface GivenValues {
  overrides: Record<string, string>;
  /** The exports' values, or what is wrong with the file that gives them (said where an Fn::ImportValue needs one). */
  exported: Record<string, string> | string;
}

/** What to do about a parameter without a value, for the one line that says so. */
export const parameterHint = (name: string) => `give it a value: --parameter-overrides ${name}=VALUE, or parameter_overrides in the app's samconfig.toml`;

function evaluate(
  value: unknown,
  template: Template,
  given: GivenValues,
  created: Record<string, ResourceAttributes> | undefined,
  strict: boolean,
  placeholder?: (reference: string) => string,
): unknown {
  const again = (inner: unknown) => evaluate(inner, template, given, created, strict, placeholder);
  const { overrides, exported } = given;
  if (Array.isArray(value)) return value.map(again).filter((item) => item !== NO_VALUE);
  if (!value || typeof value !== "object") return value;
  const entries = Object.entries(value);
  const [fn, args] = entries[0] ?? [];
  const attribute = (logicalId: string, name: string): string => {
    const found = created?.[logicalId]?.[name];
    if (found !== undefined) return found;
    if (!strict) throw new Unresolvable();
    const reference = name === "Ref" ? `!Ref ${logicalId}` : `!GetAtt ${logicalId}.${name}`;
    if (placeholder) return placeholder(reference);
    throw new TemplateError(
      `${reference} cannot be evaluated locally${created?.[logicalId] ? ` (${logicalId} has ${Object.keys(created[logicalId]).join(", ")})` : ""}`,
    );
  };
  if (entries.length === 1 && fn !== undefined && (fn === "Ref" || fn === "Condition" || fn.startsWith("Fn::"))) {
    try {
      switch (fn) {
        case "Ref": {
          const name = String(args);
          if (name === "AWS::NoValue") return NO_VALUE;
          if (name in PSEUDO_PARAMETERS) return PSEUDO_PARAMETERS[name];
          if (template.Parameters && name in template.Parameters) {
            const parameterValue = name in overrides ? overrides[name] : template.Parameters[name]?.Default;
            if (parameterValue !== undefined || !strict) return parameterValue;
            if (placeholder) return placeholder(`the parameter ${name}`);
            throw new TemplateError(`the parameter ${name} has no Default and no value: ${parameterHint(name)}`);
          }
          return attribute(name, "Ref");
        }
        case "Fn::GetAtt": {
          const [logicalId, ...rest] = (typeof args === "string" ? args.split(".") : (args as string[])).map(String);
          return attribute(logicalId!, rest.join("."));
        }
        case "Fn::ImportValue": {
          const name = String(again(args));
          if (typeof exported !== "string" && name in exported) return exported[name];
          if (!strict) throw new Unresolvable();
          if (placeholder) return placeholder(`Fn::ImportValue ${name}`);
          if (typeof exported === "string") throw new TemplateError(exported);
          throw new TemplateError(`Fn::ImportValue ${name} has no value here: ${exportHint(name)}`);
        }
        case "Condition":
          return again(template.Conditions?.[String(args)]);
        case "Fn::If": {
          const [condition, whenTrue, whenFalse] = args as [string, unknown, unknown];
          return again(again(template.Conditions?.[condition]) ? whenTrue : whenFalse);
        }
        case "Fn::FindInMap": {
          const [map, key, name] = (args as unknown[]).map((arg) => String(again(arg)));
          return template.Mappings?.[map!]?.[key!]?.[name!];
        }
        case "Fn::Not":
          return !again((args as unknown[])[0]);
        case "Fn::Equals": {
          const [a, b] = (args as unknown[]).map(again);
          return String(a) === String(b);
        }
        case "Fn::And":
          return (args as unknown[]).every((arg) => again(arg));
        case "Fn::Or":
          return (args as unknown[]).some((arg) => again(arg));
        case "Fn::Join": {
          const [separator, list] = args as [string, unknown[]];
          return (again(list) as unknown[]).map(String).join(separator);
        }
        case "Fn::Select": {
          const [index, list] = args as [unknown, unknown];
          return (again(list) as unknown[])[Number(again(index))];
        }
        case "Fn::Split": {
          const [separator, text] = args as [string, unknown];
          return String(again(text)).split(separator);
        }
        case "Fn::Sub": {
          const [text, variables = {}] = typeof args === "string" ? [args, {}] : (args as [string, Record<string, unknown>]);
          return text.replace(/\$\{([^}!][^}]*)\}/g, (_, name: string) => {
            if (name in variables) return String(again((variables as Record<string, unknown>)[name]));
            const [logicalId, ...rest] = name.split(".");
            return String(rest.length ? attribute(logicalId!, rest.join(".")) : again({ Ref: name }));
          });
        }
      }
    } catch (error) {
      if (error instanceof Unresolvable) return value;
      throw error;
    }
  }
  return Object.fromEntries(entries.map(([key, inner]) => [key, again(inner)]).filter(([, inner]) => inner !== NO_VALUE));
}

/** The properties of SAM resources that name a file or folder relative to their template: a code folder, a layer's, a state machine's or an API's definition, a nested application's or stack's template, a GraphQL schema. */
const PATH_PROPERTIES = ["CodeUri", "ContentUri", "DefinitionUri", "Location", "TemplateURL", "SchemaUri"];

/** Whether a value names a file on disk (not an S3 or web address). */
const isLocalPath = (value: unknown): value is string => typeof value === "string" && !/^[a-z][\w+.-]*:\/\//i.test(value);

/** A resource's (or Globals') paths made absolute from its template's folder `dir`: what a copy of the template read elsewhere needs. */
export function absolutePaths(properties: Record<string, unknown> | undefined, dir: string): void {
  for (const key of PATH_PROPERTIES) {
    const value = properties?.[key];
    if (isLocalPath(value) && !isAbsolute(value)) properties![key] = resolve(dir, value);
  }
}

/** The separator of a nested application's resources in the names SAM gives them (sam local invoke Child/Function). */
export const NESTED_SEPARATOR = "/";

/** A function's logical id in the template that declares it (a nested application's function's last part). */
export const ownLogicalId = (fn: Pick<TemplateFunction, "logicalId">) => fn.logicalId.split(NESTED_SEPARATOR).pop()!;

/** The nested application a logical id is of, as its prefix (Orders/ of Orders/Lister; "" for the app's own). */
export const applicationOf = (logicalId: string) => logicalId.slice(0, logicalId.lastIndexOf(NESTED_SEPARATOR) + 1);

/**
 * The nested applications of a template whose Location is a local template (as `sam build` and
 * `sam local invoke Child/Function` take them): each one's template, the parameters it is given.
 */
function localApplications(template: Template, file: string): Array<{ logicalId: string; file: string; parameters: Record<string, unknown> }> {
  return Object.entries(template.Resources).flatMap(([logicalId, entry]) => {
    if (entry.Type !== "AWS::Serverless::Application" && entry.Type !== "AWS::CloudFormation::Stack") return [];
    const location = entry.Type === "AWS::Serverless::Application" ? entry.Properties?.Location : entry.Properties?.TemplateURL;
    if (!isLocalPath(location)) return [];
    const child = resolve(dirname(file), location);
    return existsSync(child) ? [{ logicalId, file: child, parameters: (entry.Properties?.Parameters ?? {}) as Record<string, unknown> }] : [];
  });
}

/**
 * A template with its local nested applications folded in, as one: each application's resources
 * named <Application>/<LogicalId> (SAM's names), its parameters replaced by what the parent gives
 * them (else their Default), its conditions and mappings likewise named, its functions' Globals
 * applied and its paths made absolute, and the parent's Fn::GetAtt <Application>.Outputs.<Name>
 * replaced by that output's value. `origins` gets the template file of each resource folded in
 * (its functions have their own Globals applied).
 */
export function foldNested(template: Template, file: string, origins = new Map<string, string>()): Template {
  const applications = localApplications(template, file);
  if (applications.length === 0) return template;
  const folded: Template = structuredClone(template);
  const outputs = new Map<string, unknown>();
  for (const application of applications) {
    const prefix = `${application.logicalId}${NESTED_SEPARATOR}`;
    const childOrigins = new Map<string, string>();
    const child = foldNested(templateAsWritten(application.file), application.file, childOrigins);
    const childDir = dirname(application.file);
    const parameters = child.Parameters ?? {};
    const renamed = (name: string) => `${prefix}${name}`;
    const given = (name: string): unknown =>
      name in application.parameters
        ? application.parameters[name]
        : parameters[name]?.Default !== undefined
          ? parameters[name]!.Default
          : { Ref: renamed(name) };
    const rename = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rename);
      if (!value || typeof value !== "object") return value;
      const entries = Object.entries(value);
      const [fn, args] = entries[0] ?? [];
      if (entries.length === 1 && fn === "Ref" && typeof args === "string") {
        if (args.startsWith("AWS::")) return value;
        return args in parameters ? given(args) : { Ref: renamed(args) };
      }
      if (entries.length === 1 && fn === "Fn::GetAtt") {
        const [logicalId, ...attribute] = typeof args === "string" ? args.split(".") : (args as string[]);
        return { "Fn::GetAtt": [renamed(String(logicalId)), attribute.join(".")] };
      }
      if (entries.length === 1 && fn === "Condition" && typeof args === "string") return { Condition: renamed(args) };
      if (entries.length === 1 && fn === "Fn::If") {
        const [condition, ...branches] = args as unknown[];
        return { "Fn::If": [renamed(String(condition)), ...branches.map(rename)] };
      }
      if (entries.length === 1 && fn === "Fn::FindInMap") {
        const [map, ...keys] = args as unknown[];
        return { "Fn::FindInMap": [renamed(String(map)), ...keys.map(rename)] };
      }
      if (entries.length === 1 && fn === "Fn::Sub") {
        const [text, variables = {}] = typeof args === "string" ? [args, {}] : (args as [string, Record<string, unknown>]);
        const own = new Map(Object.entries(variables).map(([name, inner]) => [name, rename(inner)]));
        const rewritten = text.replace(/\$\{([^}!][^}]*)\}/g, (whole, name: string) => {
          if (own.has(name) || name.startsWith("AWS::")) return whole;
          const [logicalId, ...attribute] = name.split(".");
          if (attribute.length === 0 && logicalId! in parameters) {
            own.set(logicalId!, given(logicalId!));
            return whole;
          }
          return `\${${renamed(logicalId!)}${attribute.length ? `.${attribute.join(".")}` : ""}}`;
        });
        return { "Fn::Sub": own.size ? [rewritten, Object.fromEntries(own)] : rewritten };
      }
      return Object.fromEntries(entries.map(([key, inner]) => [key, rename(inner)]));
    };
    const childFunctionGlobals = child.Globals?.Function ?? {};
    for (const [logicalId, entry] of Object.entries(child.Resources)) {
      const copy = structuredClone(entry);
      if (copy.Type === "AWS::Serverless::Function" && !childOrigins.has(logicalId)) copy.Properties = { ...childFunctionGlobals, ...copy.Properties };
      absolutePaths(copy.Properties, childDir);
      if (copy.Type === "AWS::Serverless::Function" && copy.Properties?.CodeUri === undefined && copy.Properties?.InlineCode === undefined)
        copy.Properties = { ...copy.Properties, CodeUri: childDir };
      if (copy.DependsOn !== undefined) copy.DependsOn = [copy.DependsOn].flat().map((id) => renamed(String(id)));
      const moved = rename(copy) as TemplateResourceEntry;
      if (entry.Condition) moved.Condition = renamed(entry.Condition);
      folded.Resources[renamed(logicalId)] = moved;
      origins.set(renamed(logicalId), childOrigins.get(logicalId) ?? application.file);
    }
    const renamedEntries = <T,>(entries: Record<string, T> | undefined, value: (entry: T) => unknown) =>
      Object.fromEntries(Object.entries(entries ?? {}).map(([name, entry]) => [renamed(name), value(entry)]));
    folded.Conditions = { ...folded.Conditions, ...renamedEntries(child.Conditions, rename) };
    folded.Mappings = { ...folded.Mappings, ...(renamedEntries(child.Mappings, (map) => map) as Template["Mappings"]) };
    // A parameter neither given nor defaulted keeps a name of its own, which --parameter-overrides can set (Application/Name=VALUE).
    const unvalued = Object.fromEntries(
      Object.entries(parameters).filter(([name, parameter]) => !(name in application.parameters) && parameter.Default === undefined),
    );
    folded.Parameters = { ...folded.Parameters, ...(renamedEntries(unvalued, (parameter) => parameter) as Template["Parameters"]) };
    for (const [name, output] of Object.entries((child.Outputs ?? {}) as Record<string, { Value?: unknown }>))
      outputs.set(`${application.logicalId}.Outputs.${name}`, rename(output.Value));
    delete folded.Resources[application.logicalId];
  }
  // The parent's reads of an application's outputs: the output's value, in the folded names.
  const withOutputs = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(withOutputs);
    if (!value || typeof value !== "object") return value;
    const getAtt = (value as { "Fn::GetAtt"?: unknown })["Fn::GetAtt"];
    if (getAtt !== undefined) {
      const path = typeof getAtt === "string" ? getAtt : (getAtt as string[]).join(".");
      if (outputs.has(path)) return outputs.get(path);
    }
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, withOutputs(inner)]));
  };
  return withOutputs(folded) as Template;
}

/** The template's functions and other resources, with Globals applied and conditions evaluated; a local nested application's, folded in (foldNested). */
/** What a user who named functions the template does not have reads: those names and the ones it has (null: it has them all). */
export function notFunctionsOf(template: Pick<SamTemplate, "file" | "functions">, names: string[]): string | null {
  const unknown = names.filter((name) => !template.functions.some((fn) => fn.logicalId === name));
  if (unknown.length === 0) return null;
  const shown = relative(process.cwd(), template.file) || template.file;
  const which = unknown.length === 1 ? "is not a function" : "are not functions";
  return `${unknown.join(", ")} ${which} of ${shown}; its functions: ${template.functions.map((fn) => fn.logicalId).join(", ") || "none"}`;
}

export function readTemplate(file: string, overrides: Record<string, string> = {}): SamTemplate {
  const origins = new Map<string, string>();
  const template = foldNested(templateAsWritten(file), file, origins);
  const given = { overrides, exported: exportedValues(file) };
  // Without `created`, references to resources stay as written (strict: false).
  const lenient = (value: unknown) => evaluate(value, template, given, undefined, false);
  const present = (entry: TemplateResourceEntry) => entry.Condition === undefined || Boolean(lenient(template.Conditions?.[entry.Condition]));
  const globals = template.Globals?.Function ?? {};
  const entries = Object.entries(template.Resources).filter(([, entry]) => present(entry));
  const resourceEntries = new Map(entries);
  const functionIds = entries.filter(([, entry]) => FUNCTION_TYPES.includes(entry.Type)).map(([logicalId]) => logicalId);
  const customResources = entries.flatMap(([resourceId, entry]): CustomResource[] => {
    const provider = isCustomResource(entry.Type) && functionIds.find((logicalId) => namesResource(entry.Properties?.ServiceToken, logicalId));
    return provider ? [{ provider, source: customResourceSource(resourceId, entry, entries, lenient) }] : [];
  });
  const functions = entries
    .filter(([, entry]) => FUNCTION_TYPES.includes(entry.Type))
    .map(([logicalId, written]): TemplateFunction => {
      const entry = asServerlessFunction(written);
      // A nested application's function has had its own Globals applied (foldNested), not these; Globals are SAM's.
      const applied = origins.has(logicalId) || written.Type !== SAM_FUNCTION ? {} : globals;
      const props = lenient({ ...applied, ...entry.Properties }) as Record<string, unknown>;
      const globalVariables = (applied.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables;
      const ownVariables = (entry.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables;
      const provisioned = props.ProvisionedConcurrencyConfig as { ProvisionedConcurrentExecutions?: unknown } | undefined;
      const events = Object.entries((props.Events ?? {}) as Record<string, { Type: string; Properties?: Record<string, unknown> }>);
      const route = events.find(
        ([, { Type, Properties }]) => Type === "HttpApi" && typeof Properties?.Method === "string" && Properties.Method.toUpperCase() === "GET",
      )?.[1];
      const [firstName, first] = events[0] ?? [];
      const metadata = entry.Metadata ?? {};
      const sampleEvent = sampleEventOf(file, logicalId);
      const layers = (props.Layers as unknown[] | undefined) ?? [];
      return {
        logicalId,
        templateFile: origins.get(logicalId) ?? file,
        codeDir: resolve(dirname(file), String(props.CodeUri ?? ".")),
        handler: String(props.Handler),
        runtime: props.Runtime === undefined ? undefined : String(props.Runtime),
        memoryMb: Number(props.MemorySize ?? 128),
        timeoutSeconds: Number(props.Timeout ?? 3),
        architecture: String((props.Architectures as string[] | undefined)?.[0] ?? "x86_64"),
        tracing: props.Tracing === "Active",
        provisionedConcurrency: Number(provisioned?.ProvisionedConcurrentExecutions ?? 0),
        alias: typeof props.AutoPublishAlias === "string" && props.AutoPublishAlias !== "" ? props.AutoPublishAlias : null,
        httpPath: typeof route?.Properties?.Path === "string" ? route.Properties.Path : null,
        eventSource: first
          ? eventSource(firstName!, first.Type, first.Properties ?? {}, resourceEntries, lenient)
          : (authorizerOf(logicalId, entries, lenient) ?? invokerOf(logicalId, entries, lenient, file, customResources)),
        sampleEvent: existsSync(sampleEvent) ? sampleEvent : null,
        layers: layers.flatMap((layer) => {
          if (isOwnLayer(layer, template)) return [templateLayer(layer, template, file)];
          const published = publishedLayerOf(layer, file);
          return published && existsSync(published.contentDir) ? [published] : [];
        }),
        foreignLayers: layers
          .filter((layer) => !isOwnLayer(layer, template) && !existsSync(publishedLayerOf(layer, file)?.contentDir ?? ""))
          .map((layer) => (typeof layer === "string" ? layer : JSON.stringify(layer))),
        buildMethod: typeof metadata.BuildMethod === "string" ? metadata.BuildMethod : null,
        buildProperties: (metadata.BuildProperties ?? {}) as Record<string, unknown>,
        floorOf: floorOf(logicalId, metadata.FloorOf, template, file),
        environment: { ...globalVariables, ...ownVariables },
        whyNotOnDisk: whyNotOnDisk(entry.Properties ?? {}, written.Type),
        inlineCode: typeof props.InlineCode === "string" ? props.InlineCode : null,
        ...(typeof metadata[COPY_OF] === "string" ? { copyOf: metadata[COPY_OF] } : {}),
      };
    });
  const resources = entries
    .filter(([, entry]) => !FUNCTION_TYPES.includes(entry.Type))
    .map(([logicalId, entry]) => ({ logicalId, type: entry.Type, properties: (entry.Properties ?? {}) as Record<string, unknown> }));
  return {
    file,
    raw: template,
    functions,
    resources,
    customResources,
    resolve: (value, created, placeholder) => evaluate(value, template, given, created ?? {}, true, placeholder),
  };
}

const SAM_FUNCTION = "AWS::Serverless::Function";
/** The functions of a template: SAM's, and CloudFormation's own, which sam build and sam local invoke take too. */
const FUNCTION_TYPES = [SAM_FUNCTION, "AWS::Lambda::Function"];

/** An AWS::Lambda::Function read as SAM's function is: its Code as CodeUri (a path sam build takes) or InlineCode (ZipFile), its TracingConfig as Tracing. */
function asServerlessFunction(entry: TemplateResourceEntry): TemplateResourceEntry {
  if (entry.Type === SAM_FUNCTION) return entry;
  const { Code, TracingConfig, ...rest } = (entry.Properties ?? {}) as { Code?: unknown; TracingConfig?: { Mode?: unknown } } & Record<string, unknown>;
  const code =
    typeof Code === "string" ? { CodeUri: Code } : Code && typeof Code === "object" && "ZipFile" in Code ? { InlineCode: Code.ZipFile } : { CodeUri: Code };
  return { ...entry, Properties: { ...rest, ...code, ...(TracingConfig?.Mode ? { Tracing: TracingConfig.Mode } : {}) } };
}

/** Why a function's code is not a folder on disk the pipeline builds (null: it is): inline code (the lab writes it out itself), or code in S3. */
function whyNotOnDisk(properties: Record<string, unknown>, type: string): string | null {
  const code = type === SAM_FUNCTION ? "InlineCode" : "Code.ZipFile";
  if (properties.InlineCode !== undefined)
    return `its code is inline (${code}): the lab runs it as Lambda deploys it, but the pipeline builds a handler from its file: put it in a file its CodeUri names`;
  const uri = properties.CodeUri;
  if (uri !== undefined && typeof uri !== "string") return `its code is in S3 (${JSON.stringify(uri)}): the lab runs code on disk, as sam local invoke does`;
  if (typeof uri === "string" && uri.startsWith("s3://")) return `its code is in S3 (${uri}): the lab runs code on disk, as sam local invoke does`;
  return null;
}

/** Where an app gives the values of the exports its Fn::ImportValue reads: export name → value, as another stack's Outputs export them. */
const exportsFileOf = (template: string) => join(seedDirOf(template), "exports.json");

/** What to do about an Fn::ImportValue without a value, for the one line that says so. */
const exportHint = (name: string) => `give its value in the app's local-aws/exports.json, e.g. {"${name}": "VALUE"}`;

/** The app's local-aws/exports.json ({} without one), or the line saying what is wrong with it: only what imports a value fails. */
function exportedValues(template: string): Record<string, string> | string {
  const file = exportsFileOf(template);
  if (!existsSync(file)) return {};
  const expected = 'an object of export name → value (a string), e.g. {"shared-vpc-id": "vpc-1"}';
  let values: unknown;
  try {
    values = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    return `${file} is not JSON (${(error as Error).message}): write ${expected}`;
  }
  if (!values || typeof values !== "object" || Array.isArray(values) || Object.values(values).some((value) => typeof value !== "string"))
    return `${file} is not ${expected}`;
  return values as Record<string, string>;
}

/** The logical id a Ref or an Fn::GetAtt (either form) names, or undefined for any other value. */
function referencedId(value: unknown): string | undefined {
  const { Ref: ref, "Fn::GetAtt": getAtt } = (value ?? {}) as { Ref?: unknown; "Fn::GetAtt"?: unknown };
  if (typeof ref === "string") return ref;
  return Array.isArray(getAtt) ? String(getAtt[0]) : typeof getAtt === "string" ? getAtt.split(".")[0] : undefined;
}

/** An event source, properties evaluated leniently, with the resources they reference (a lenient evaluation leaves Ref and Fn::GetAtt of one as written). */
function eventSource(
  name: string,
  type: string,
  properties: Record<string, unknown>,
  resources: Map<string, TemplateResourceEntry>,
  lenient: (value: unknown) => unknown,
): TemplateEventSource {
  const references = Object.entries(properties).flatMap(([property, value]) => {
    const logicalId = referencedId(value);
    const entry = logicalId === undefined ? undefined : resources.get(logicalId);
    return entry ? [[property, { logicalId: logicalId!, type: entry.Type, properties: lenient(entry.Properties ?? {}) as Record<string, unknown> }]] : [];
  });
  return { name, type, properties, references: Object.fromEntries(references) };
}

/** The API types whose Auth.Authorizers name functions, and the source type a function they name gets. */
const AUTHORIZER_SOURCES: Record<string, string> = { "AWS::Serverless::Api": "ApiAuthorizer", "AWS::Serverless::HttpApi": "HttpApiAuthorizer" };

/**
 * A function no event of its own triggers that an API calls as its Lambda authorizer (Auth.Authorizers
 * naming it in FunctionArn): that is its trigger, with the authorizer's properties (its payload type
 * or format version).
 */
function authorizerOf(logicalId: string, entries: [string, TemplateResourceEntry][], lenient: (value: unknown) => unknown): TemplateEventSource | null {
  for (const [apiId, entry] of entries) {
    const type = AUTHORIZER_SOURCES[entry.Type];
    const authorizers = (entry.Properties?.Auth as { Authorizers?: Record<string, Record<string, unknown>> } | undefined)?.Authorizers ?? {};
    for (const [name, authorizer] of Object.entries(type ? authorizers : {})) {
      if (referencedId(authorizer.FunctionArn) === logicalId)
        return { name: `${apiId}.${name}`, type: type!, properties: lenient(authorizer) as Record<string, unknown>, references: {} };
    }
  }
  return null;
}

/**
 * Whether a value names a resource: a Ref or an Fn::GetAtt of it, an Fn::Sub whose text says
 * ${LogicalId} or ${LogicalId.Attribute} (`arn:...:${Fn.Arn}/invocations`), anywhere within it.
 */
function namesResource(value: unknown, logicalId: string): boolean {
  if (referencedId(value) === logicalId) return true;
  if (Array.isArray(value)) return value.some((item) => namesResource(item, logicalId));
  if (!value || typeof value !== "object") return false;
  const sub = (value as { "Fn::Sub"?: unknown })["Fn::Sub"];
  const text = typeof sub === "string" ? sub : Array.isArray(sub) && typeof sub[0] === "string" ? sub[0] : null;
  if (text !== null && (text.includes(`\${${logicalId}}`) || text.includes(`\${${logicalId}.`))) return true;
  return Object.values(value).some((inner) => namesResource(inner, logicalId));
}

type Entries = [string, TemplateResourceEntry][];

/**
 * What else of the template invokes a function no Events entry and no API authorizer names: a REST
 * API's own Authorizer or Method resource, an ApiGatewayV2 authorizer whose AuthorizerUri names it,
 * a route whose integration's IntegrationUri names it (or an HTTP API's quick-create Target), a
 * custom resource whose ServiceToken names it, a Task state of a state machine, its URL, a
 * Scheduler schedule, a Cognito user pool's trigger, or another function's deployment hook.
 */
function invokerOf(
  logicalId: string,
  entries: Entries,
  lenient: (value: unknown) => unknown,
  file: string,
  customResources: CustomResource[],
): TemplateEventSource | null {
  return (
    restApiOf(logicalId, entries, lenient) ??
    apiV2AuthorizerOf(logicalId, entries, lenient) ??
    routeOf(logicalId, entries, lenient) ??
    customResources.find(({ provider }) => provider === logicalId)?.source ??
    stateMachineTaskOf(logicalId, entries, lenient, file) ??
    functionUrlOf(logicalId, entries, lenient) ??
    schedulerScheduleOf(logicalId, entries, lenient) ??
    userPoolTriggerOf(logicalId, entries) ??
    deploymentHookOf(logicalId, entries)
  );
}

/** The function's URL: its own FunctionUrlConfig (SAM's), or an AWS::Lambda::Url whose TargetFunctionArn names it. */
function functionUrlOf(logicalId: string, entries: Entries, lenient: (value: unknown) => unknown): TemplateEventSource | null {
  const own = entries.find(([id]) => id === logicalId)?.[1].Properties?.FunctionUrlConfig;
  if (own) return { name: `${logicalId}Url`, type: "FunctionUrl", properties: lenient(own) as Record<string, unknown>, references: {} };
  const url = entries.find(([, entry]) => entry.Type === "AWS::Lambda::Url" && namesResource(entry.Properties?.TargetFunctionArn, logicalId));
  return url ? { name: url[0], type: "FunctionUrl", properties: lenient(url[1].Properties ?? {}) as Record<string, unknown>, references: {} } : null;
}

/** An EventBridge Scheduler schedule whose target is the function: SAM's ScheduleV2 event, its Input the schedule's. */
function schedulerScheduleOf(logicalId: string, entries: Entries, lenient: (value: unknown) => unknown): TemplateEventSource | null {
  const found = entries.find(
    ([, entry]) => entry.Type === "AWS::Scheduler::Schedule" && namesResource((entry.Properties?.Target as { Arn?: unknown } | undefined)?.Arn, logicalId),
  );
  if (!found) return null;
  const [scheduleId, { Properties: properties = {} }] = found;
  const { Name: name, Target: target } = lenient(properties) as { Name?: unknown; Target?: { Input?: unknown } };
  return { name: scheduleId, type: "ScheduleV2", properties: { Name: name ?? scheduleId, Input: target?.Input }, references: {} };
}

/** A hook of another function's DeploymentPreference (PreTraffic, PostTraffic): CodeDeploy invokes it as it shifts that function's traffic. */
function deploymentHookOf(logicalId: string, entries: Entries): TemplateEventSource | null {
  for (const [functionId, entry] of entries) {
    const hooks = ((entry.Properties?.DeploymentPreference as { Hooks?: unknown } | undefined)?.Hooks ?? {}) as Record<string, unknown>;
    const hook = Object.entries(hooks).find(([, value]) => namesResource(value, logicalId))?.[0];
    if (hook) return { name: `${functionId}.${hook}`, type: "CodeDeployHook", properties: { Function: functionId, Hook: hook }, references: {} };
  }
  return null;
}

/** A Cognito user pool trigger (LambdaConfig's PreSignUp, CustomSMSSender, ...) naming the function: SAM's Cognito event. */
function userPoolTriggerOf(logicalId: string, entries: Entries): TemplateEventSource | null {
  for (const [poolId, entry] of entries) {
    if (entry.Type !== "AWS::Cognito::UserPool") continue;
    const config = (entry.Properties?.LambdaConfig ?? {}) as Record<string, unknown>;
    // The custom sender triggers name it as { LambdaArn, LambdaVersion }.
    const trigger = Object.entries(config).find(([, value]) => namesResource(value, logicalId))?.[0];
    if (trigger) return { name: `${poolId}.${trigger}`, type: "Cognito", properties: { UserPool: poolId, Trigger: trigger }, references: {} };
  }
  return null;
}

/** An ApiGatewayV2 route key as SAM's HttpApi event properties: "GET /items/{id}" → Method, Path; "$default" → none (the catch-all). */
function routeProperties(routeKey: string): Record<string, unknown> {
  const [method, path] = routeKey.split(" ");
  return path === undefined ? {} : { Method: method, Path: path };
}

/**
 * A REST API written as CloudFormation's own resources: an AWS::ApiGateway::Authorizer whose
 * AuthorizerUri names the function (SAM's ApiAuthorizer, TOKEN or REQUEST), or a Method whose
 * AWS_PROXY integration's Uri does (SAM's Api event, its path that of the method's Resource chain).
 */
function restApiOf(logicalId: string, entries: Entries, lenient: (value: unknown) => unknown): TemplateEventSource | null {
  const byId = new Map(entries);
  const authorizer = entries.find(([, entry]) => entry.Type === "AWS::ApiGateway::Authorizer" && namesResource(entry.Properties?.AuthorizerUri, logicalId));
  if (authorizer) {
    const [authorizerId, { Properties: properties = {} }] = authorizer;
    const type = lenient(properties.Type) === "REQUEST" ? "REQUEST" : "TOKEN";
    return {
      name: `${referencedId(properties.RestApiId) ?? ""}.${authorizerId}`,
      type: "ApiAuthorizer",
      properties: { FunctionPayloadType: type },
      references: {},
    };
  }
  const method = entries.find(
    ([, entry]) => entry.Type === "AWS::ApiGateway::Method" && namesResource((entry.Properties?.Integration as { Uri?: unknown } | undefined)?.Uri, logicalId),
  );
  if (!method) return null;
  const [methodId, { Properties: properties = {} }] = method;
  // The path: each Resource's PathPart up its ParentId chain to the API's root (GetAtt RootResourceId).
  const parts: string[] = [];
  for (let id = referencedId(properties.ResourceId); id && byId.get(id)?.Type === "AWS::ApiGateway::Resource"; ) {
    const resource = byId.get(id)!.Properties ?? {};
    parts.unshift(String(lenient(resource.PathPart)));
    id = referencedId(resource.ParentId);
  }
  return {
    name: `${referencedId(properties.RestApiId) ?? ""}.${methodId}`,
    type: "Api",
    properties: { Method: lenient(properties.HttpMethod), Path: `/${parts.join("/")}` },
    references: {},
  };
}

/** The StageName of an ApiGatewayV2 API's stage, evaluated ($default where it has none). */
function stageNameOf(apiId: string, entries: Entries, lenient: (value: unknown) => unknown): string {
  const stage = lenient(
    entries.find(([, entry]) => entry.Type === "AWS::ApiGatewayV2::Stage" && referencedId(entry.Properties?.ApiId) === apiId)?.[1].Properties?.StageName,
  );
  return typeof stage === "string" ? stage : "$default";
}

/**
 * An AWS::ApiGatewayV2::Authorizer whose AuthorizerUri names the function: API Gateway invokes it
 * before the routes it protects (a WebSocket API's, on $connect).
 */
function apiV2AuthorizerOf(logicalId: string, entries: Entries, lenient: (value: unknown) => unknown): TemplateEventSource | null {
  const found = entries.find(([, entry]) => entry.Type === "AWS::ApiGatewayV2::Authorizer" && namesResource(entry.Properties?.AuthorizerUri, logicalId));
  if (!found) return null;
  const [authorizerId, { Properties: properties = {} }] = found;
  const apiId = referencedId(properties.ApiId) ?? "";
  const api = (lenient(entries.find(([id]) => id === apiId)?.[1].Properties ?? {}) ?? {}) as Record<string, unknown>;
  const name = `${apiId}.${authorizerId}`;
  if (api.ProtocolType === "WEBSOCKET")
    return {
      name,
      type: "WebSocketAuthorizer",
      properties: { ApiId: apiId, Stage: stageNameOf(apiId, entries, lenient), RouteKey: "$connect" },
      references: {},
    };
  return {
    name,
    type: "HttpApiAuthorizer",
    properties: { AuthorizerPayloadFormatVersion: lenient(properties.AuthorizerPayloadFormatVersion) },
    references: {},
  };
}

/** The first ApiGatewayV2 route (in template order) whose integration invokes the function, as its event source. */
function routeOf(logicalId: string, entries: Entries, lenient: (value: unknown) => unknown): TemplateEventSource | null {
  const ofType = (type: string) => entries.filter(([, entry]) => entry.Type === type);
  const apis = new Map(ofType("AWS::ApiGatewayV2::Api"));
  const source = (name: string, apiId: string, routeKey: string, integration: Record<string, unknown>): TemplateEventSource => {
    const api = (lenient(apis.get(apiId)?.Properties ?? {}) ?? {}) as Record<string, unknown>;
    const stageName = stageNameOf(apiId, entries, lenient);
    if (api.ProtocolType === "WEBSOCKET")
      return {
        name,
        type: "WebSocket",
        properties: { RouteKey: routeKey, Stage: stageName, ApiId: apiId, RouteSelectionExpression: api.RouteSelectionExpression },
        references: {},
      };
    const format = lenient(integration.PayloadFormatVersion);
    return {
      name,
      type: "HttpApi",
      properties: { ...routeProperties(routeKey), ...(format === undefined ? {} : { PayloadFormatVersion: format }) },
      references: {},
    };
  };
  for (const [integrationId, integration] of ofType("AWS::ApiGatewayV2::Integration")) {
    if (!namesResource(integration.Properties?.IntegrationUri, logicalId)) continue;
    const route = ofType("AWS::ApiGatewayV2::Route").find(([, candidate]) => namesResource(candidate.Properties?.Target, integrationId));
    if (!route) continue;
    const [routeId, { Properties: properties = {} }] = route;
    const apiId = referencedId(properties.ApiId) ?? referencedId(integration.Properties?.ApiId) ?? "";
    return source(`${apiId}.${routeId}`, apiId, String(lenient(properties.RouteKey)), integration.Properties ?? {});
  }
  // An HTTP API's quick create: its Target is the function, behind the $default route.
  const quick = [...apis].find(([, api]) => namesResource(api.Properties?.Target, logicalId));
  return quick ? source(quick[0], quick[0], "$default", {}) : null;
}

/** The types CloudFormation sends a custom resource's requests for: AWS::CloudFormation::CustomResource, and Custom::<Anything>. */
export const isCustomResource = (type: unknown) => type === "AWS::CloudFormation::CustomResource" || (typeof type === "string" && type.startsWith("Custom::"));

/** A custom resource as the event source of its provider's requests: its type and properties. */
function customResourceSource(resourceId: string, entry: TemplateResourceEntry, entries: Entries, lenient: (value: unknown) => unknown): TemplateEventSource {
  const properties = lenient(entry.Properties ?? {}) as Record<string, unknown>;
  return eventSource(resourceId, "CustomResource", { ResourceType: entry.Type, ...properties }, new Map(entries), lenient);
}

type States = Record<
  string,
  { Type?: string; Resource?: unknown; Parameters?: Record<string, unknown>; Arguments?: Record<string, unknown> } & Record<string, unknown>
>;

/** The states of a definition, those of its Parallel branches and Map iterations included. */
function allStates(definition: unknown): States {
  const states = ((definition ?? {}) as { States?: States }).States ?? {};
  const nested = Object.values(states).flatMap((state) => [
    ...((state.Branches as unknown[] | undefined) ?? []),
    ...[state.ItemProcessor, state.Iterator].filter(Boolean),
  ]);
  return Object.assign({}, states, ...nested.map(allStates));
}

/**
 * A state machine's definition: Definition (a SAM one's is YAML, intrinsics and all), DefinitionString,
 * or the file DefinitionUri names, relative to the template (JSON or YAML). Null when there is none to read.
 */
function definitionOf(properties: Record<string, unknown>, lenient: (value: unknown) => unknown, file: string): unknown {
  if (properties.Definition !== undefined) return properties.Definition;
  // An Fn::Sub's text as written: its ${Function.Arn} is what names the function.
  const string = lenient(properties.DefinitionString) as unknown;
  const sub = (string as { "Fn::Sub"?: unknown } | undefined)?.["Fn::Sub"];
  const text = typeof string === "string" ? string : Array.isArray(sub) ? sub[0] : sub;
  const uri = properties.DefinitionUri;
  try {
    if (typeof text === "string") return JSON.parse(text);
    if (typeof uri === "string") return parse(readFileSync(resolve(dirname(file), uri), "utf8"), { customTags: CFN_TAGS });
  } catch {
    // A definition that cannot be read invokes nothing the lab can see.
  }
  return null;
}

/** The Task state of a state machine that invokes the function: its Resource, or a lambda:invoke's FunctionName, names it, directly or through DefinitionSubstitutions. */
function stateMachineTaskOf(logicalId: string, entries: Entries, lenient: (value: unknown) => unknown, file: string): TemplateEventSource | null {
  for (const [machineId, entry] of entries) {
    if (entry.Type !== "AWS::Serverless::StateMachine" && entry.Type !== "AWS::StepFunctions::StateMachine") continue;
    const properties = entry.Properties ?? {};
    const substitutions = (properties.DefinitionSubstitutions ?? {}) as Record<string, unknown>;
    const substituted = Object.keys(substitutions).filter((name) => namesResource(substitutions[name], logicalId));
    const names = (value: unknown) =>
      namesResource(value, logicalId) ||
      (typeof value === "string" && [...substituted, logicalId, `${logicalId}.Arn`].some((name) => value.includes(`\${${name}}`)));
    const states = allStates(definitionOf(properties, lenient, file));
    const task = Object.entries(states).find(
      ([, state]) =>
        state.Type === "Task" &&
        (names(state.Resource) || names(state.Parameters?.FunctionName ?? state.Parameters?.["FunctionName.$"]) || names(state.Arguments?.FunctionName)),
    );
    if (task) return { name: `${machineId}.${task[0]}`, type: "StepFunctionsTask", properties: { StateMachine: machineId, State: task[0] }, references: {} };
  }
  return null;
}

/** Metadata.FloorOf, checked: the logical id of another function of the template. */
function floorOf(logicalId: string, value: unknown, template: Template, file: string): string | null {
  if (value === undefined) return null;
  if (typeof value !== "string" || value === logicalId || !FUNCTION_TYPES.includes(template.Resources[value]?.Type ?? ""))
    throw new TemplateError(`${logicalId}: Metadata.FloorOf must name another function of ${file}, not ${JSON.stringify(value)}`);
  return value;
}

/** Whether a function's layer is a Ref to an AWS::Serverless::LayerVersion of the template. */
function isOwnLayer(layer: unknown, template: Template): layer is { Ref: string } {
  const logicalId = (layer as { Ref?: unknown } | null)?.Ref;
  return typeof logicalId === "string" && template.Resources[logicalId]?.Type === "AWS::Serverless::LayerVersion";
}

/**
 * A published layer (its ARN, arn:aws:lambda:<region>:<account>:layer:<name>:<version>) whose
 * content the app gives the lab: the files of its zip in the seed folder's layers/<name>/ (the lab
 * cannot fetch it); null for anything else.
 */
function publishedLayerOf(layer: unknown, file: string): TemplateLayer | null {
  const name = typeof layer === "string" ? /^arn:[^:]+:lambda:[^:]*:[^:]*:layer:([^:]+):\d+$/.exec(layer)?.[1] : undefined;
  return name ? { logicalId: name, contentDir: publishedLayerDirOf(file, name) } : null;
}

/** Where an app gives the lab a published layer's content, by the layer's name: beside template.yaml, in its seed folder. */
const publishedLayerDirOf = (templateFile: string, name: string) => join(seedDirOf(templateFile), "layers", name);

/** A function's own layer: a Ref to a LayerVersion of the template. */
function templateLayer({ Ref: logicalId }: { Ref: string }, template: Template, file: string): TemplateLayer {
  return { logicalId, contentDir: resolve(dirname(file), String(template.Resources[logicalId]!.Properties?.ContentUri)) };
}

/**
 * The types whose Ref a build can embed before anything exists, by the property that fixes the
 * name their Ref answers. A secret's Ref is its ARN, whose suffix only Secrets Manager makes up,
 * but GetSecretValue takes its name as well.
 */
export const NAMED_TYPES: Record<string, { nameProperty: string }> = {
  "AWS::SSM::Parameter": { nameProperty: "Name" },
  "AWS::SecretsManager::Secret": { nameProperty: "Name" },
  "AWS::DynamoDB::Table": { nameProperty: "TableName" },
  "AWS::Serverless::SimpleTable": { nameProperty: "TableName" },
  "AWS::S3::Bucket": { nameProperty: "BucketName" },
  "AWS::Logs::LogGroup": { nameProperty: "LogGroupName" },
  "AWS::Kinesis::Stream": { nameProperty: "Name" },
  "AWS::Events::EventBus": { nameProperty: "Name" },
};

/** The name a resource was given in the template (a plain string), or null when CloudFormation would make one up. */
export function fixedName(resource: TemplateResource): string | null {
  const type = NAMED_TYPES[resource.type];
  const name = type && resource.properties[type.nameProperty];
  return typeof name === "string" ? name : null;
}
