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
  Globals?: { Function?: Record<string, unknown> };
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown>; Metadata?: Record<string, unknown> }>;
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
  /** The GET route of its HttpApi event, e.g. /raw. */
  httpPath: string | null;
}

/** A property value with a parameter reference replaced by the parameter's value (override or default). */
function resolveValue(value: unknown, template: Template, overrides: Record<string, string>): unknown {
  if (value && typeof value === "object" && "Ref" in value) {
    const name = String((value as { Ref: unknown }).Ref);
    return overrides[name] ?? template.Parameters?.[name]?.Default;
  }
  return value;
}

/** The functions of a template (with Globals applied), in template order. */
export function templateFunctions(file: string, overrides: Record<string, string> = {}): TemplateFunction[] {
  const template = loadTemplate(file);
  const globals = template.Globals?.Function ?? {};
  return Object.entries(template.Resources)
    .filter(([, resource]) => resource.Type === "AWS::Serverless::Function")
    .map(([logicalId, resource]) => {
      const props = { ...globals, ...resource.Properties };
      const get = (key: string) => resolveValue(props[key], template, overrides);
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
        httpPath: route?.Properties?.Path ?? null,
      };
    });
}
