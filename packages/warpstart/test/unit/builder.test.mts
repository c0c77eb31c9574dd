// The pipeline's reading of a template function: its handler, its source and format, its
// build-time constants, and what its code imports from the SDK (Warp's chunk is made of that).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatOf, templateDefines } from "../../builder/build.mts";
import { acceptsPartialInit } from "../../builder/code-cache.mts";
import { handlerParts, handlerSource } from "../../builder/handler.mts";
import { builtLayer } from "../../builder/layer-packages.mts";
import { PEERS, PROFILES } from "../../builder/profiles.mts";
import { chunkEntry, importedNames, packageOf, serviceHosts } from "../../builder/sdk.mts";
import { readTemplate, type SamTemplate, type TemplateFunction, type TemplateLayer } from "../../core/template.mts";
import { DEMO_ROOT } from "../support/demo.mts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "warpstart-builder-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A template of its own, in the test's folder. */
function template(resources: string): SamTemplate {
  writeFileSync(join(dir, "template.yaml"), `Transform: AWS::Serverless-2016-10-31\nResources:\n${resources}`);
  return readTemplate(join(dir, "template.yaml"));
}
const fn = (sam: SamTemplate, id = "Fn"): TemplateFunction => sam.functions.find((candidate) => candidate.logicalId === id)!;

describe("handlerParts", () => {
  it("splits a handler at the first dot of its file name, as the runtime does", () => {
    expect(handlerParts("src/functions/hello/index.handler")).toEqual({ module: "src/functions/hello/index", exportPath: "handler" });
    expect(handlerParts("app.v2/index.nested.handler")).toEqual({ module: "app.v2/index", exportPath: "nested.handler" });
  });

  it.each(["index", "src/index.", ".handler", "../escape/index.handler"])("rejects %p, saying what a handler looks like", (handler) => {
    expect(() => handlerParts(handler)).toThrow(`Handler "${handler}" is not of the form path/to/module.export (e.g. src/functions/hello/index.handler)`);
  });
});

describe("handlerSource", () => {
  const write = (file: string) => {
    mkdirSync(join(dir, file, ".."), { recursive: true });
    writeFileSync(join(dir, file), "export const handler = () => 1;\n");
  };
  const of = (buildProperties: Record<string, unknown> = {}) => ({ logicalId: "Fn", codeDir: dir, handler: "src/functions/fn/index.handler", buildProperties });

  it("finds the TypeScript or JavaScript source the handler names, and writes an ES module", () => {
    write("src/functions/fn/index.mts");
    expect(handlerSource(of())).toEqual({ source: join(dir, "src/functions/fn/index.mts"), format: "esm", outputFile: "src/functions/fn/index.mjs" });
  });

  it("writes CommonJS for a .cts source, or when BuildProperties Format says cjs", () => {
    write("src/functions/fn/index.cts");
    expect(handlerSource(of())).toMatchObject({ format: "cjs", outputFile: "src/functions/fn/index.cjs" });
    expect(handlerSource(of({ Format: "esm" }))).toMatchObject({ format: "esm", outputFile: "src/functions/fn/index.mjs" });
  });

  it("says where it looked when there is no source, and rejects a Format it does not know", () => {
    expect(() => handlerSource(of())).toThrow(
      `Fn: its Handler src/functions/fn/index.handler names the source src/functions/fn/index.{mts,ts,mjs,js,cts,cjs} in ${dir} (CodeUri), and there is none`,
    );
    write("src/functions/fn/index.js");
    expect(() => handlerSource(of({ Format: "umd" }))).toThrow('Fn: BuildProperties.Format must be esm or cjs, not "umd"');
  });
});

describe("formatOf: the format a peer profile's tool writes", () => {
  const fnWith = (code: string, buildProperties: Record<string, unknown> = {}): TemplateFunction => {
    writeFileSync(join(dir, "index.mts"), code);
    return { ...fn(template("  Fn:\n    Type: AWS::Serverless::Function\n    Properties: { Handler: index.handler, CodeUri: . }\n")), buildProperties };
  };

  it("writes CommonJS for es2020 as sam init's templates set SAM's esbuild builder, whatever the source's format", async () => {
    const built = await formatOf(fnWith("export const handler = async () => 1;\n"), PEERS.SamEsbuild);
    expect(built).toMatchObject({ format: "cjs", esbuild: { target: "es2020", minify: true, sourcemap: true }, note: null });
  });

  it("builds a handler that awaits at the top level as an ES module for es2022, as that tool's users set it, and says so", async () => {
    const built = await formatOf(fnWith("const settings = await Promise.resolve(1);\nexport const handler = async () => settings;\n"), PEERS.SamEsbuild);
    expect(built).toMatchObject({ format: "esm", esbuild: { target: "es2022" } });
    expect(built.note).toBe(
      "its handler awaits at the top level, which CommonJS cannot: built as an ES module for es2022, as its tool's users set it (Format: esm)",
    );
    // A tool that sets no target (AWS CDK's NodejsFunction, as RuntimeSdk builds) keeps the runtime's.
    expect(await formatOf(fnWith("await Promise.resolve();\nexport const handler = async () => 1;\n"), PEERS.RuntimeSdk)).toMatchObject({
      format: "esm",
      esbuild: { bundle: true },
    });
  });

  it("leaves a Format the template sets, and the source's own format in the pipeline's profiles, as they are", async () => {
    const awaiting = "await Promise.resolve();\nexport const handler = async () => 1;\n";
    expect(await formatOf(fnWith(awaiting, { Format: "cjs" }), PEERS.SamEsbuild)).toMatchObject({ format: "cjs", note: null });
    expect(await formatOf(fnWith(awaiting), PROFILES.Optimized)).toMatchObject({ format: "esm", note: null });
  });
});

describe("templateDefines (BuildProperties.Define)", () => {
  const FUNCTION = (define: string) =>
    `  Fn:\n    Type: AWS::Serverless::Function\n    Metadata: { BuildMethod: makefile, BuildProperties: { Define: ${define} } }\n    Properties: { Handler: index.handler }\n`;

  it("embeds literals as JSON, and a !Ref to a resource with a fixed name as that name (a secret's too)", () => {
    const sam = template(
      `${FUNCTION("{ TABLE: !Ref Table, SECRET: !Ref Secret, RETRIES: 3, VERBOSE: false, GREETING: hi }")}` +
        "  Table:\n    Type: AWS::DynamoDB::Table\n    Properties: { TableName: orders }\n" +
        "  Secret:\n    Type: AWS::SecretsManager::Secret\n    Properties: { Name: app/key }\n",
    );
    expect(templateDefines(sam, fn(sam))).toEqual({ TABLE: '"orders"', SECRET: '"app/key"', RETRIES: "3", VERBOSE: "false", GREETING: '"hi"' });
  });

  it.each([
    [
      "{ NAME: !Ref Unnamed }",
      "  Unnamed:\n    Type: AWS::S3::Bucket\n",
      "Fn: Define NAME: !Ref Unnamed has no name before deploy time: give it one (BucketName) so the build can embed it, or pass it through Environment instead",
    ],
    [
      "{ QUEUE: !Ref Jobs }",
      "  Jobs:\n    Type: AWS::SQS::Queue\n    Properties: { QueueName: jobs }\n",
      "Fn: Define QUEUE: !Ref Jobs has no name before deploy time (AWS::SQS::Queue), or pass it through Environment instead",
    ],
    [
      "{ STAGE: !Ref Stage }",
      "",
      'Fn: Define STAGE: {"Ref":"Stage"} cannot be embedded at build time; use a string, a number, a boolean or !Ref to a resource of the template with a fixed name (a parameter\'s value is chosen at deploy time: pass it through Environment instead)',
    ],
    ["{ 1NAME: x }", "", "Fn: Define 1NAME: not an identifier a handler can use"],
    ["[A, B]", "", "Fn: Metadata.BuildProperties.Define must be a map of constant names to values"],
  ])("rejects Define %s, saying what to do", (define, resources, message) => {
    const sam = template(`${FUNCTION(define)}${resources}`);
    expect(() => templateDefines(sam, fn(sam))).toThrow(message);
  });
});

describe("what a handler imports from the SDK", () => {
  it("reads the names of every form esbuild writes for an external import, and nothing from comments or strings", () => {
    const code = [
      'import { GetParameterCommand, SSMClient as Client } from "@aws-sdk/client-ssm";',
      'import {\n  DynamoDBClient,\n  PutItemCommand\n} from "@aws-sdk/client-dynamodb";',
      'import * as lib from "@aws-sdk/lib-dynamodb";',
      "console.log(lib);", // used whole: the whole module
      'import "@smithy/some-side-effect";',
      'import { readFileSync } from "node:fs";',
      'const later = () => import("@aws-sdk/client-sts");',
      'import { SSMClient } from "@aws-sdk/client-ssm";',
      // A library's JSDoc example and a string: neither is an import.
      '/** @example const { S3Client } = await import("@aws-sdk/client-s3"); */',
      "const hint = 'import { S3Client } from \"@aws-sdk/client-s3\"';",
      'export { EventBridgeClient } from "@aws-sdk/client-eventbridge";',
    ].join("\n");
    const resolved = [
      "@aws-sdk/client-ssm",
      "@aws-sdk/client-dynamodb",
      "@aws-sdk/lib-dynamodb",
      "@smithy/some-side-effect",
      "@aws-sdk/client-sts",
      "@aws-sdk/client-s3",
      "@aws-sdk/client-eventbridge",
    ];
    expect(importedNames(code, new Set(resolved))).toEqual(
      new Map<string, Set<string> | "*">([
        ["@aws-sdk/client-ssm", new Set(["GetParameterCommand", "SSMClient"])],
        ["@aws-sdk/client-dynamodb", new Set(["DynamoDBClient", "PutItemCommand"])],
        ["@aws-sdk/lib-dynamodb", "*"],
        ["@smithy/some-side-effect", new Set()],
        ["@aws-sdk/client-sts", "*"],
        ["@aws-sdk/client-eventbridge", new Set(["EventBridgeClient"])],
      ]),
    );
  });

  it("reads a default import by name, and a namespace by the names read off it unless it is used whole", () => {
    const code = [
      'import greet, { shout } from "node_modules/greet/index.js";',
      'import * as z from "node_modules/zod/index.js";',
      'import * as whole from "node_modules/whole/index.js";',
      "const schema = z.object({ id: z.string() });",
      "const keys = Object.keys(whole);",
      "const notZod = { z: 1 }.z;",
    ].join("\n");
    const libraries = ["node_modules/greet/index.js", "node_modules/zod/index.js", "node_modules/whole/index.js"];
    // `{ z: 1 }` is no use of the namespace esbuild would keep: read as whole, the safe side.
    expect(importedNames(code, new Set(libraries))).toEqual(
      new Map<string, Set<string> | "*">([
        ["node_modules/greet/index.js", new Set(["default", "shout"])],
        ["node_modules/zod/index.js", "*"],
        ["node_modules/whole/index.js", "*"],
      ]),
    );
    expect(importedNames(code.split("\n").slice(0, 4).join("\n"), new Set(libraries))).toEqual(
      new Map<string, Set<string> | "*">([
        ["node_modules/greet/index.js", new Set(["default", "shout"])],
        ["node_modules/zod/index.js", new Set(["object", "string"])],
        ["node_modules/whole/index.js", new Set()],
      ]),
    );
  });

  it("reads only the specifiers esbuild resolved as the SDK's", () => {
    expect(importedNames('import { SSMClient } from "@aws-sdk/client-ssm";', new Set())).toEqual(new Map());
  });

  it("names a specifier's package", () => {
    expect(packageOf("@aws-sdk/client-ssm/dist-es/commands/index.js")).toBe("@aws-sdk/client-ssm");
  });

  it("makes the chunk's entry export each specifier's names, or its whole module, and require each library taken whole or CommonJS where it is first asked for", () => {
    const entry = chunkEntry(
      new Map<string, Set<string> | "*">([
        ["@aws-sdk/client-ssm", new Set(["SSMClient", "GetParameterCommand"])],
        ["@aws-sdk/lib-dynamodb", "*"],
      ]),
      new Map([
        ["node_modules/zod/index.js", { names: new Set(["object"]), format: "esm" as const }],
        ["node_modules/whole/index.js", { names: "*" as const, format: "esm" as const }],
        ["node_modules/pino/pino.js", { names: new Set(["default"]), format: "cjs" as const }],
        ["../app/node_modules/x/index.js", { names: "*" as const, format: "cjs" as const }],
      ]),
    );
    expect(entry).toBe(
      [
        'import * as m0 from "@aws-sdk/client-ssm";',
        'import * as m1 from "@aws-sdk/lib-dynamodb";',
        'import * as m2 from "./node_modules/zod/index.js";',
        'export const sdkPackages = { "@aws-sdk/client-ssm": { "SSMClient": m0.SSMClient, "GetParameterCommand": m0.GetParameterCommand }, "@aws-sdk/lib-dynamodb": m1, "node_modules/zod/index.js": { "object": m2.object }, get "node_modules/whole/index.js"() { return require("./node_modules/whole/index.js"); }, get "node_modules/pino/pino.js"() { return require("./node_modules/pino/pino.js"); }, get "../app/node_modules/x/index.js"() { return require("../app/node_modules/x/index.js"); } };',
        "",
      ].join("\n"),
    );
  });

  it("finds each imported client's endpoint host and its AWS_ENDPOINT_URL_<SERVICE> in the client's own rules (Warp's early lookup)", () => {
    const imports = new Map<string, Set<string> | "*">([
      ["@aws-sdk/client-sts", new Set(["STSClient"])],
      ["@aws-sdk/client-secrets-manager/dist-es/commands/index.js", "*"],
      ["@aws-sdk/client-dynamodb", new Set(["DynamoDBClient"])],
      ["@smithy/core", "*"],
    ]);
    expect(serviceHosts(imports, DEMO_ROOT)).toEqual([
      { endpointVariable: "STS", host: "sts.{region}.amazonaws.com" },
      { endpointVariable: "SECRETS_MANAGER", host: "secretsmanager.{region}.amazonaws.com" },
      { endpointVariable: "DYNAMODB", host: "dynamodb.{region}.amazonaws.com" },
    ]);
  });
});

describe("acceptsPartialInit (BuildProperties.WarpPartialInit)", () => {
  it("is false unless the function says true, and says what it takes when given anything else", () => {
    expect(acceptsPartialInit({ logicalId: "Quotes", buildProperties: {} })).toBe(false);
    expect(acceptsPartialInit({ logicalId: "Quotes", buildProperties: { WarpPartialInit: true } })).toBe(true);
    expect(() => acceptsPartialInit({ logicalId: "Quotes", buildProperties: { WarpPartialInit: "yes" } })).toThrow(
      'Quotes: Metadata.BuildProperties.WarpPartialInit must be true or false, not "yes"',
    );
  });
});

describe("builtLayer", () => {
  it("is the layer as sam build built it, in the first build folder that holds it, else its content as the template names it", () => {
    const root = mkdtempSync(join(tmpdir(), "warpstart-built-layer-"));
    try {
      const [beside, app] = [join(root, "beside"), join(root, "app")];
      mkdirSync(join(app, "Deps"), { recursive: true });
      const layer = { logicalId: "Deps", contentDir: join(root, "src/deps") } as TemplateLayer;
      expect(builtLayer(layer, [beside, app])).toEqual({ ...layer, contentDir: join(app, "Deps") });
      mkdirSync(join(beside, "Deps"), { recursive: true });
      expect(builtLayer(layer, [beside, app]).contentDir).toBe(join(beside, "Deps"));
      expect(builtLayer({ ...layer, logicalId: "Other" }, [beside, app])).toEqual({ ...layer, logicalId: "Other" });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
