// Reads SAM templates: the source template.yaml (short-form intrinsics like !Ref) and the one
// `sam build` writes, and lists the functions with their settings as Lambda would see them.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parse, type CollectionTag, type ScalarTag } from "yaml";

const INTRINSICS = ["Ref", "Condition", "Base64", "Cidr", "FindInMap", "GetAZs", "GetAtt", "If", "ImportValue", "Join", "Not", "Equals", "And", "Or", "Select", "Split", "Sub", "Transform"];

// `!GetAtt A.B` is the one short form whose scalar becomes a list.
const fnName = (name: string) => (name === "Ref" || name === "Condition" ? name : `Fn::${name}`);
const CFN_TAGS: (ScalarTag | CollectionTag)[] = INTRINSICS.flatMap((name) => [
  { tag: `!${name}`, resolve: (value: string) => ({ [fnName(name)]: name === "GetAtt" ? value.split(".") : value }) } as ScalarTag,
  { tag: `!${name}`, collection: "seq", resolve: (seq: { toJSON(): unknown }) => ({ [fnName(name)]: seq.toJSON() }) } as unknown as CollectionTag,
  { tag: `!${name}`, collection: "map", resolve: (map: { toJSON(): unknown }) => ({ [fnName(name)]: map.toJSON() }) } as unknown as CollectionTag,
]);

export type Template = {
  Parameters?: Record<string, { Default?: unknown }>;
  Mappings?: Record<string, Record<string, Record<string, unknown>>>;
  Conditions?: Record<string, unknown>;
  Globals?: { Function?: Record<string, unknown> };
  Resources: Record<string, { Type: string; Condition?: string; Properties?: Record<string, unknown>; Metadata?: Record<string, unknown> }>;
  [key: string]: unknown;
};

export function loadTemplate(file: string): Template {
  return parse(readFileSync(file, "utf8"), { customTags: CFN_TAGS }) as Template;
}

export interface TemplateFunction {
  logicalId: string;
  codeDir: string;
  handler: string;
  runtime: string;
  memoryMb: number;
  timeoutSeconds: number;
  architecture: string;
  /** Environments to keep initialized (ProvisionedConcurrencyConfig, conditions evaluated). */
  provisionedConcurrency: number;
  /** The GET route of its HttpApi event, e.g. /raw. */
  httpPath: string | null;
  /** Its layers (AWS::Serverless::LayerVersion of the same template), in order: Lambda extracts them to /opt. */
  layers: TemplateLayer[];
}

export interface TemplateLayer {
  logicalId: string;
  contentDir: string;
}

const NO_VALUE = Symbol("AWS::NoValue");

/**
 * A property value with the intrinsics this lab needs evaluated: Ref to a parameter (override or
 * default) or AWS::NoValue, Fn::If on a condition, Fn::FindInMap, and the conditions' Fn::Not/
 * Fn::Equals/Fn::And/Fn::Or. Anything else (e.g. a Ref to a resource) is returned as it is.
 */
function resolveValue(value: unknown, template: Template, overrides: Record<string, string>): unknown {
  if (!value || typeof value !== "object" || Array.isArray(value)) return value;
  const resolve = (inner: unknown) => resolveValue(inner, template, overrides);
  const [[fn, args]] = Object.entries(value) as [[string, unknown]];
  switch (fn) {
    case "Ref": {
      const name = String(args);
      if (name === "AWS::NoValue") return NO_VALUE;
      return name in overrides ? overrides[name] : (template.Parameters?.[name]?.Default ?? value);
    }
    case "Condition":
      return resolve(template.Conditions?.[String(args)]);
    case "Fn::If": {
      const [condition, whenTrue, whenFalse] = args as [string, unknown, unknown];
      return resolve(resolve(template.Conditions?.[condition]) ? whenTrue : whenFalse);
    }
    case "Fn::FindInMap": {
      const [map, key, attribute] = (args as unknown[]).map((arg) => String(resolve(arg)));
      return template.Mappings?.[map!]?.[key!]?.[attribute!] ?? value;
    }
    case "Fn::Not":
      return !resolve((args as unknown[])[0]);
    case "Fn::Equals": {
      const [a, b] = (args as unknown[]).map(resolve);
      return String(a) === String(b);
    }
    case "Fn::And":
      return (args as unknown[]).every((arg) => resolve(arg));
    case "Fn::Or":
      return (args as unknown[]).some((arg) => resolve(arg));
    default:
      return value;
  }
}

/** The functions of a template (with Globals applied), in template order. */
export function templateFunctions(file: string, overrides: Record<string, string> = {}): TemplateFunction[] {
  const template = loadTemplate(file);
  const globals = template.Globals?.Function ?? {};
  return Object.entries(template.Resources)
    .filter(([, resource]) => resource.Type === "AWS::Serverless::Function")
    .map(([logicalId, resource]) => {
      const props = { ...globals, ...resource.Properties };
      const get = (key: string) => {
        const resolved = resolveValue(props[key], template, overrides);
        return resolved === NO_VALUE ? undefined : resolved;
      };
      const provisioned = get("ProvisionedConcurrencyConfig") as { ProvisionedConcurrentExecutions?: unknown } | undefined;
      const events = Object.values((props.Events ?? {}) as Record<string, { Type: string; Properties?: { Path?: string; Method?: string } }>);
      const route = events.find((event) => event.Type === "HttpApi" && event.Properties?.Method?.toUpperCase() === "GET");
      return {
        logicalId,
        codeDir: resolve(dirname(file), String(get("CodeUri"))),
        handler: String(get("Handler")),
        runtime: String(get("Runtime")),
        memoryMb: Number(get("MemorySize") ?? 128),
        timeoutSeconds: Number(get("Timeout") ?? 3),
        architecture: String((get("Architectures") as string[] | undefined)?.[0] ?? "x86_64"),
        provisionedConcurrency: Number(resolveValue(provisioned?.ProvisionedConcurrentExecutions, template, overrides) ?? 0),
        httpPath: route?.Properties?.Path ?? null,
        layers: ((get("Layers") as unknown[] | undefined) ?? []).map((layer) => templateLayer(layer, template, file)),
      };
    });
}

/** A function's layer: a Ref to a LayerVersion of the template (an ARN of a published layer cannot run locally). */
function templateLayer(layer: unknown, template: Template, file: string): TemplateLayer {
  const logicalId = (layer as { Ref?: unknown } | null)?.Ref;
  const resource = typeof logicalId === "string" ? template.Resources[logicalId] : undefined;
  if (resource?.Type !== "AWS::Serverless::LayerVersion") {
    throw new Error(`Layer ${JSON.stringify(layer)} is not a Ref to an AWS::Serverless::LayerVersion of ${file}: the lab runs only the template's own layers.`);
  }
  return { logicalId: logicalId as string, contentDir: resolve(dirname(file), String(resource.Properties?.ContentUri)) };
}
