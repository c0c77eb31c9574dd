// Reading any SAM app: its functions with Globals, the intrinsics a local run evaluates, its
// samconfig.toml's parameters, and what is said about a file that is not a SAM template.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keepsAlive } from "../../builder/build.mts";
import { foldersUp, PACKAGE_ROOT } from "../../core/paths.mts";
import { parseParameterOverrides, samconfigParameterOverrides } from "../../core/samconfig.mts";
import { readTemplate, templateAsWritten } from "../../core/template.mts";
import { templateOfCopies } from "../../doctor/app-build.mts";
import { placeholdersLine, templateVariables } from "../../emulation/function-environment.mts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "warpstart-template-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

const APP = `Transform: AWS::Serverless-2016-10-31
Parameters:
  Stage: { Type: String, Default: dev }
Conditions:
  IsProd: !Equals [!Ref Stage, prod]
Globals:
  Function:
    Runtime: nodejs22.x
    MemorySize: 256
    Environment:
      Variables: { STAGE: !Ref Stage }
Resources:
  Table:
    Type: AWS::DynamoDB::Table
    Properties: { TableName: !Sub "orders-\${Stage}" }
  ProdOnly:
    Type: AWS::SSM::Parameter
    Condition: IsProd
    Properties: { Type: String, Value: x }
  Fn:
    Type: AWS::Serverless::Function
    Metadata: { BuildMethod: makefile, BuildProperties: { Profile: Warp } }
    Properties:
      CodeUri: app
      Handler: src/index.handler
      Environment:
        Variables:
          TABLE: !Ref Table
          TABLE_ARN: !GetAtt Table.Arn
          URL: !Sub "https://\${AWS::Region}.example/\${Table}"
          LIST: !Join [",", [a, b]]
`;

describe("readTemplate", () => {
  it("gives each function its settings with Globals applied, its build metadata and its variables as written", () => {
    const sam = readTemplate(write("template.yaml", APP));
    expect(sam.functions).toEqual([
      expect.objectContaining({
        logicalId: "Fn",
        codeDir: join(dir, "app"),
        handler: "src/index.handler",
        runtime: "nodejs22.x",
        memoryMb: 256,
        buildMethod: "makefile",
        buildProperties: { Profile: "Warp" },
        environment: expect.objectContaining({ STAGE: { Ref: "Stage" }, TABLE: { Ref: "Table" } }),
      }),
    ]);
  });

  it("reads Metadata.FloorOf, which must name another function of the template", () => {
    const floor = (floorOf: string) =>
      write(
        "template.yaml",
        `${APP}  Floor:\n    Type: AWS::Serverless::Function\n    Metadata: { BuildMethod: makefile, FloorOf: ${floorOf} }\n    Properties: { CodeUri: app, Handler: src/floor.handler }\n`,
      );
    expect(readTemplate(floor("Fn")).functions.map((fn) => [fn.logicalId, fn.floorOf])).toEqual([
      ["Fn", null],
      ["Floor", "Fn"],
    ]);
    for (const wrong of ["Table", "Floor", "Missing"])
      expect(() => readTemplate(floor(wrong))).toThrow(`Floor: Metadata.FloorOf must name another function of ${join(dir, "template.yaml")}, not "${wrong}"`);
  });

  it("reads AutoPublishAlias (Globals' or the function's own, a parameter evaluated) and its provisioned concurrency; none without one", () => {
    const app = write(
      "template.yaml",
      `${APP.replace("    MemorySize: 256\n", "    MemorySize: 256\n    AutoPublishAlias: !Ref Stage\n")}      ProvisionedConcurrencyConfig: { ProvisionedConcurrentExecutions: 2 }\n  Own:\n    Type: AWS::Serverless::Function\n    Properties: { CodeUri: app, Handler: src/own.handler, AutoPublishAlias: live }\n`,
    );
    expect(readTemplate(app, { Stage: "prod" }).functions.map((fn) => [fn.logicalId, fn.alias, fn.provisionedConcurrency])).toEqual([
      ["Fn", "prod", 2],
      ["Own", "live", 0],
    ]);
    expect(readTemplate(write("template.yaml", APP)).functions[0]!.alias).toBeNull();
  });

  it("lists the resources whose condition holds, with a parameter override deciding it", () => {
    expect(readTemplate(write("template.yaml", APP)).resources.map((resource) => resource.logicalId)).toEqual(["Table"]);
    expect(readTemplate(write("template.yaml", APP), { Stage: "prod" }).resources.map((resource) => resource.logicalId)).toEqual(["Table", "ProdOnly"]);
  });

  it("evaluates parameters, pseudo parameters, Sub, Join and, once resources exist, their Ref and GetAtt", () => {
    const sam = readTemplate(write("template.yaml", APP));
    const created = { Table: { Ref: "orders-dev", Arn: "arn:aws:dynamodb:us-east-1:123456789012:table/orders-dev" } };
    expect(templateVariables(sam, sam.functions[0]!, created).variables).toEqual({
      STAGE: "dev",
      TABLE: "orders-dev",
      TABLE_ARN: "arn:aws:dynamodb:us-east-1:123456789012:table/orders-dev",
      URL: "https://us-east-1.example/orders-dev",
      LIST: "a,b",
    });
    expect(sam.resolve(sam.resources[0]!.properties)).toEqual({ TableName: "orders-dev" });
  });

  it("gives each function its first event source in template order, evaluated leniently, with the resources its properties reference", () => {
    const sam = readTemplate(
      write(
        "template.yaml",
        `${APP}      Events:
        Changed: { Type: DynamoDB, Properties: { Stream: !GetAtt Table.StreamArn, StartingPosition: !If [IsProd, LATEST, TRIM_HORIZON] } }
        Get: { Type: HttpApi, Properties: { Method: GET, Path: /orders } }
`,
      ),
    );
    expect(sam.functions[0]).toMatchObject({
      httpPath: "/orders",
      eventSource: {
        name: "Changed",
        type: "DynamoDB",
        properties: { Stream: { "Fn::GetAtt": ["Table", "StreamArn"] }, StartingPosition: "TRIM_HORIZON" },
        references: { Stream: { logicalId: "Table", type: "AWS::DynamoDB::Table", properties: { TableName: "orders-dev" } } },
      },
    });
  });

  it("names a reference it cannot evaluate; given a placeholder for it, takes that, and a variable given a value takes that", () => {
    const sam = readTemplate(write("template.yaml", APP));
    expect(() => sam.resolve({ Ref: "Table" }, {})).toThrow("!Ref Table cannot be evaluated locally");
    const { variables, placeholders } = templateVariables(sam, sam.functions[0]!, {}, { Fn: { URL: "https://example.test/orders" } });
    expect(placeholders).toEqual([
      { name: "TABLE", reference: "!Ref Table", value: "warpstart-placeholder.table.invalid" },
      { name: "TABLE_ARN", reference: "!GetAtt Table.Arn", value: "warpstart-placeholder.table-arn.invalid" },
    ]);
    expect(variables).toMatchObject({ TABLE: "warpstart-placeholder.table.invalid", URL: "https://example.test/orders", STAGE: "dev" });
  });

  it("gives a doctor's copy of a function the values given for that function, and names the function where to give them", () => {
    const file = write("template.yaml", APP);
    const copies = templateOfCopies(templateAsWritten(file), [{ of: "Fn", copyId: "FnAsWarp", change: () => {} }]);
    const sam = readTemplate(write("copies.json", JSON.stringify(copies)));
    const copy = sam.functions.find((fn) => fn.logicalId === "FnAsWarp")!;
    expect(copy.copyOf).toBe("Fn");
    const environment = templateVariables(sam, copy, {}, { Fn: { URL: "https://example.test/orders" } });
    expect(environment.variables).toMatchObject({ URL: "https://example.test/orders" });
    expect(placeholdersLine(environment)).toContain('{"Fn":{"TABLE":"...","TABLE_ARN":"..."}}');
  });

  it.each([
    ["not YAML", "Resources: [unclosed", "is not valid YAML"],
    ["not a SAM template", "name: my-app\nversion: 1\n", "is not a SAM template: it has no Resources section"],
  ])("says so for a file that is %s", (_, text, message) => {
    const file = write("template.yaml", text);
    expect(() => readTemplate(file)).toThrow(`${file} ${message}`);
  });

  it("reads a repeated key as SAM does, the last one counting, and says so once per template", () => {
    const file = write(
      "template.yaml",
      'Resources:\n  Pool:\n    Type: AWS::Cognito::UserPool\n    Properties:\n      MfaConfiguration: "OFF"\n      MfaConfiguration: OPTIONAL\n',
    );
    const said: unknown[] = [];
    const { error } = console;
    console.error = (line: unknown) => void said.push(line);
    try {
      expect(readTemplate(file).raw.Resources.Pool!.Properties).toEqual({ MfaConfiguration: "OPTIONAL" });
      readTemplate(file);
    } finally {
      console.error = error;
    }
    expect(said).toEqual([`warning: ${file}:6: MfaConfiguration repeats a key of its map: read as SAM reads it, the last one counts; keep one`]);
  });

  it("names a parameter without a value, and says how to give it one", () => {
    const file = write(
      "template.yaml",
      "Parameters:\n  BucketName: { Type: String }\nResources:\n  Bucket: { Type: AWS::S3::Bucket, Properties: { BucketName: !Ref BucketName } }\n",
    );
    expect(() => readTemplate(file).resolve({ Ref: "BucketName" })).toThrow(
      "the parameter BucketName has no Default and no value: give it a value: --parameter-overrides BucketName=VALUE, or parameter_overrides in the app's samconfig.toml",
    );
    expect(readTemplate(file, { BucketName: "given" }).resolve({ Ref: "BucketName" })).toBe("given");
  });

  it("gives Fn::ImportValue the value local-aws/exports.json gives its export, and names one it lacks or a file it cannot use", () => {
    const file = write("template.yaml", "Resources: {}\n");
    mkdirSync(join(dir, "local-aws"));
    writeFileSync(join(dir, "local-aws/exports.json"), '{ "shared-vpc": "vpc-1" }');
    const template = readTemplate(file);
    expect(template.resolve({ "Fn::ImportValue": { "Fn::Join": ["-", ["shared", "vpc"]] } })).toBe("vpc-1");
    expect(() => template.resolve({ "Fn::ImportValue": "other" })).toThrow(
      'Fn::ImportValue other has no value here: give its value in the app\'s local-aws/exports.json, e.g. {"other": "VALUE"}',
    );
    // A file the lab cannot use fails only what imports a value.
    writeFileSync(join(dir, "local-aws/exports.json"), '["vpc-1"]');
    expect(() => readTemplate(file).resolve({ "Fn::ImportValue": "shared-vpc" })).toThrow(
      `${join(dir, "local-aws/exports.json")} is not an object of export name → value (a string), e.g. {"shared-vpc-id": "vpc-1"}`,
    );
  });

  it("says so for a file that does not exist", () => {
    expect(() => readTemplate(join(dir, "missing.yaml"))).toThrow(`cannot read the template ${join(dir, "missing.yaml")}: ENOENT`);
  });

  it("keeps a published layer (an ARN) apart from the template's own layers, as written", () => {
    const file = write(
      "template.yaml",
      `Transform: AWS::Serverless-2016-10-31
Resources:
  Shared: { Type: AWS::Serverless::LayerVersion, Properties: { ContentUri: layer } }
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: nodejs22.x
      Handler: index.handler
      Layers: [arn:aws:lambda:us-east-1:123456789012:layer:insights:1, !Ref Shared]
`,
    );
    expect(readTemplate(file).functions[0]).toMatchObject({
      layers: [{ logicalId: "Shared", contentDir: join(dir, "layer") }],
      foreignLayers: ["arn:aws:lambda:us-east-1:123456789012:layer:insights:1"],
    });
  });
});

describe("a nested application with a local Location (test/fixtures/sam-apps/sam-shapes)", () => {
  const SHAPES = join(PACKAGE_ROOT, "test/fixtures/sam-apps/sam-shapes");
  const sam = readTemplate(join(SHAPES, "template.yaml"), { Stage: "prod" });
  const fn = (logicalId: string) => sam.functions.find((candidate) => candidate.logicalId === logicalId)!;

  it("adds its functions under SAM's names, each with its own template's Globals and paths, not the parent's", () => {
    const ids = sam.functions.map((candidate) => candidate.logicalId);
    expect(ids.filter((id) => id.includes("/"))).toEqual(["Parcels/Tracker", "Parcels/Labels/Printer"]);
    expect(ids).toContain("Gateway");
    expect(fn("Parcels/Tracker")).toMatchObject({
      templateFile: join(SHAPES, "parcels/template.yaml"),
      codeDir: join(SHAPES, "parcels/tracker"),
      runtime: "nodejs20.x",
      timeoutSeconds: 9,
      memoryMb: 128,
    });
    expect(fn("Parcels/Labels/Printer")).toMatchObject({ codeDir: join(SHAPES, "parcels/labels/printer"), runtime: "nodejs22.x", timeoutSeconds: 3 });
    // The application itself is replaced by what it holds.
    const resources = sam.resources.map((resource) => resource.logicalId);
    expect(resources.filter((id) => id.startsWith("Parcels"))).toEqual(["Parcels/Table"]);
  });

  it("evaluates its references with the parameters the parent gives it (else their defaults), its conditions, and the parent's reads of its outputs", () => {
    const created = { "Parcels/Table": { Ref: "parcels-table" } };
    expect(templateVariables(sam, fn("Parcels/Tracker"), created).variables).toEqual({ TABLE: "parcels-table", STAGE: "prod-post", TIER: "gold" });
    expect(templateVariables(sam, fn("Gateway"), created).variables).toEqual({ PARCELS_TABLE: "parcels-table" });
    const dev = readTemplate(join(SHAPES, "template.yaml"));
    expect(templateVariables(dev, dev.functions.find((candidate) => candidate.logicalId === "Parcels/Tracker")!, created).variables).toMatchObject({
      STAGE: "dev-post",
      TIER: "basic",
    });
  });

  it("leaves an application whose Location is not a local template as it is: a resource the lab does not create", () => {
    const file = write(
      "template.yaml",
      `Transform: AWS::Serverless-2016-10-31
Resources:
  Published:
    Type: AWS::Serverless::Application
    Properties: { Location: { ApplicationId: arn:aws:serverlessrepo:us-east-1:123456789012:applications/x, SemanticVersion: 1.0.0 } }
  Missing:
    Type: AWS::Serverless::Application
    Properties: { Location: nowhere/template.yaml }
`,
    );
    expect(readTemplate(file).resources.map((resource) => resource.logicalId)).toEqual(["Published", "Missing"]);
  });
});

describe("samconfigParameterOverrides", () => {
  it.each([
    ["SAM's string form", 'parameter_overrides = "Stage=prod Memory=1024"'],
    ["SAM's array form", 'parameter_overrides = ["Stage=prod", "Memory=1024"]'],
  ])("reads %s", (_, line) => {
    expect(samconfigParameterOverrides(write("samconfig.toml", `version = 0.1\n[default.deploy.parameters]\n${line}\n`))).toEqual({
      Stage: "prod",
      Memory: "1024",
    });
  });

  it("reads the global section when deploy has none, and nothing from a missing file", () => {
    expect(samconfigParameterOverrides(write("samconfig.toml", 'version = 0.1\n[default.global.parameters]\nparameter_overrides = "A=1"\n'))).toEqual({
      A: "1",
    });
    expect(samconfigParameterOverrides(join(dir, "none.toml"))).toEqual({});
  });

  it("reads both of sam's forms, a quoted value keeping its spaces", () => {
    expect(parseParameterOverrides(['Stage=prod Title="a b"', "ParameterKey=Memory,ParameterValue=1024"], String)).toEqual({
      Stage: "prod",
      Title: "a b",
      Memory: "1024",
    });
    expect(() => parseParameterOverrides(["Stage=prod oops"], (entry) => `bad: ${entry}`)).toThrow("bad: oops");
  });

  it("says what is wrong with a file it cannot use", () => {
    const broken = write("samconfig.toml", "version = [\n");
    expect(() => samconfigParameterOverrides(broken)).toThrow(`${broken} is not valid TOML`);
    // The parser's own error stays on it, for whoever needs more than the line.
    expect(() => samconfigParameterOverrides(broken)).toThrow(expect.objectContaining({ cause: expect.any(Error) }));
    const pair = write("samconfig2.toml", 'version = 0.1\n[default.deploy.parameters]\nparameter_overrides = "Stage"\n');
    expect(() => samconfigParameterOverrides(pair)).toThrow(`${pair}: parameter_overrides entry "Stage" is not Name=Value`);
  });
});

describe("keepsAlive", () => {
  it("is on unless the template builds the function with Define KEEP_ALIVE: false", () => {
    expect(keepsAlive({ buildProperties: {} })).toBe(true);
    expect(keepsAlive({ buildProperties: { Define: { KEEP_ALIVE: false } } })).toBe(false);
    expect(keepsAlive({ buildProperties: { Define: { TABLE: "t" } } })).toBe(true);
  });
});

describe("foldersUp: where Node looks for a package.json or node_modules", () => {
  it("goes from a folder to the root, nearest first", () => {
    expect(foldersUp("/a/b/c")).toEqual(["/a/b/c", "/a/b", "/a", "/"]);
  });
  it("stops at the top it is given, which it includes", () => {
    expect(foldersUp("/app/fn/src", "/app")).toEqual(["/app/fn/src", "/app/fn", "/app"]);
    expect(foldersUp("/app", "/app")).toEqual(["/app"]);
  });
  it("from a folder outside that top, gives that folder alone", () => {
    expect(foldersUp("/elsewhere/fn", "/app")).toEqual(["/elsewhere/fn"]);
  });
});
