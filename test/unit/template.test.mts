// template.yaml, examples/template.yaml, samconfig.toml, the Makefile and events/ agree with each
// other, with the profiles (builder/profiles.mts) and the runtimes (core/runtimes.mts).
// `sam validate --lint` runs in the integration project.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { functionBuild, handlerSource, templateDefines } from "../../builder/build.mts";
import { PROFILE_NAMES } from "../../builder/profiles.mts";
import { fixedName, NAMED_TYPES } from "../../core/local-aws/resources.mts";
import { EXAMPLES_TEMPLATE, PROJECT_ROOT, PROJECT_TEMPLATE } from "../../core/paths.mts";
import { CUSTOM_RUNTIMES, DEFAULT_RUNTIME, RUNTIME_NAMES, RUNTIMES, type Runtime } from "../../core/runtimes.mts";
import { loadTemplate, readTemplate, templateFunctions } from "../../core/template.mts";
import { routeEvent, SAMPLE_EVENT } from "../../lab/events.mts";

const template = loadTemplate(PROJECT_TEMPLATE);
const functions = templateFunctions(PROJECT_TEMPLATE);
const NAMES = functions.map((fn) => fn.logicalId);
const resources = template.Resources;

/** Every key path in a nested value, e.g. "Resources.Raw.Properties.Environment". */
function keyPaths(value: unknown, prefix = ""): string[] {
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, child]) => [`${prefix}${key}`, ...keyPaths(child, `${prefix}${key}.`)]);
}

describe.each([PROJECT_TEMPLATE, EXAMPLES_TEMPLATE])("every function of %s", (file) => {
  const sam = readTemplate(file);
  it.each(sam.functions.map((fn) => [fn.logicalId, fn]))(
    "%s: built by the makefile builder with a known profile, from a handler source that exists",
    (_, fn) => {
      expect(fn.buildMethod).toBe("makefile");
      expect(PROFILE_NAMES).toContain(functionBuild(sam, fn.logicalId).profileName);
      expect(existsSync(handlerSource(fn).source)).toBe(true);
      expect(() => templateDefines(sam, fn)).not.toThrow();
    },
  );

  it("has no Environment block anywhere: build-time constants instead", () => {
    expect(keyPaths(loadTemplate(file)).filter((path) => /(^|\.)Environment$/.test(path))).toEqual([]);
  });
});

describe("template.yaml", () => {
  it("builds the identity handler in every profile, and the Floor, Cjs and NoKeepAlive demos", () => {
    const identity = functions
      .filter((fn) => fn.handler === "src/functions/identity/index.handler")
      .map((fn) => functionBuild(readTemplate(PROJECT_TEMPLATE), fn.logicalId).profileName);
    expect(identity).toEqual(expect.arrayContaining([...PROFILE_NAMES]));
    expect(NAMES).toEqual(expect.arrayContaining(["Floor", "Cjs", "NoKeepAlive"]));
  });

  it("sets arm64, 512 MB, a timeout and the runtime from the Runtime parameter in Globals", () => {
    const globals = template.Globals!.Function!;
    expect(globals).toMatchObject({
      Architectures: ["arm64"],
      MemorySize: 512,
      Runtime: { "Fn::FindInMap": ["Runtimes", { Ref: "Runtime" }, "Lambda"] },
      AutoPublishAlias: "live",
    });
    expect(globals.Timeout).toEqual(expect.any(Number));
    expect(template.Parameters!.Runtime).toMatchObject({ Default: DEFAULT_RUNTIME, AllowedValues: RUNTIME_NAMES });
  });

  it("maps every runtime of core/runtimes.mts to its Lambda runtime identifier", () => {
    const mapped = Object.fromEntries(Object.entries(template.Mappings!.Runtimes!).map(([name, row]) => [name, row.Lambda]));
    expect(mapped).toEqual(Object.fromEntries(RUNTIME_NAMES.map((name) => [name, RUNTIMES[name].lambdaRuntime])));
  });

  it.each(RUNTIME_NAMES)("puts every function on %s when the Runtime parameter says so, with its layer if it is a custom runtime", (name) => {
    const runtime: Runtime = RUNTIMES[name];
    for (const fn of templateFunctions(PROJECT_TEMPLATE, { Runtime: name })) {
      expect(fn.runtime).toBe(runtime.lambdaRuntime);
      expect(fn.layers.map((layer) => layer.logicalId)).toEqual(runtime.kind === "custom" ? [runtime.layer] : []);
    }
  });

  it.each(CUSTOM_RUNTIMES)("builds the $layer layer for arm64 provided.al2023, only when functions use it", ({ name, layer }) => {
    expect(resources[layer!]).toMatchObject({
      Type: "AWS::Serverless::LayerVersion",
      Condition: expect.any(String),
      Metadata: { BuildMethod: "makefile", BuildArchitecture: "arm64" },
      Properties: { CompatibleRuntimes: ["provided.al2023"], CompatibleArchitectures: ["arm64"] },
    });
    expect((template.Conditions as Record<string, unknown>)[resources[layer!]!.Condition as string]).toEqual({ "Fn::Equals": [{ Ref: "Runtime" }, name] });
  });

  it("adds provisioned concurrency only when the parameter is above 0", () => {
    expect(template.Parameters!.ProvisionedConcurrency).toMatchObject({ Type: "Number", Default: 0 });
    expect((template.Conditions as Record<string, unknown>).HasProvisionedConcurrency).toEqual({
      "Fn::Not": [{ "Fn::Equals": [{ Ref: "ProvisionedConcurrency" }, 0] }],
    });
    expect(template.Globals!.Function!.ProvisionedConcurrencyConfig).toEqual({
      "Fn::If": ["HasProvisionedConcurrency", { ProvisionedConcurrentExecutions: { Ref: "ProvisionedConcurrency" } }, { Ref: "AWS::NoValue" }],
    });
  });

  it("lets a user pin Warp's runtime version (its V8 code cache fits one Node version), Auto otherwise", () => {
    expect(template.Parameters!.WarpRuntimeVersionArn).toMatchObject({ Default: "" });
    expect(resources.Warp!.Properties!.RuntimeManagementConfig).toEqual({
      "Fn::If": ["PinsWarpRuntime", { UpdateRuntimeOn: "Manual", RuntimeVersionArn: { Ref: "WarpRuntimeVersionArn" } }, { UpdateRuntimeOn: "Auto" }],
    });
  });

  it("grants no IAM permissions (GetCallerIdentity needs none) and allows no Resource '*'", () => {
    const paths = keyPaths(template);
    expect(paths.filter((path) => /\.(Policies|Role|Statement)$/.test(path))).toEqual([]);
    expect(JSON.stringify(template)).not.toMatch(/"Resource":"\*"/);
  });

  it.each(NAMES)("logs %s to a log group with retention", (name) => {
    const logGroup = (resources[name]!.Properties!.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
    expect(resources[logGroup]).toMatchObject({ Type: "AWS::Logs::LogGroup", Properties: { RetentionInDays: { Ref: "LogRetentionInDays" } } });
  });

  it.each(NAMES)("routes GET /%s to its function on the HTTP API", (name) => {
    expect(functions.find((fn) => fn.logicalId === name)!.httpPath).toBe(`/${name.toLowerCase()}`);
  });

  it("outputs the API URL, the runtime and each function's name and alias ARN", () => {
    const outputs = template.Outputs as Record<string, { Value: unknown }>;
    expect(outputs.ApiUrl).toBeDefined();
    expect(outputs.Runtime!.Value).toEqual({ Ref: "Runtime" });
    for (const name of NAMES) {
      expect(outputs[`${name}FunctionName`]!.Value).toEqual({ Ref: name });
      expect(outputs[`${name}AliasArn`]!.Value).toEqual({ Ref: `${name}.Alias` });
    }
  });

  it("has the Serverless Application Repository metadata sam publish needs", () => {
    const app = (template.Metadata as Record<string, Record<string, unknown>>)["AWS::ServerlessRepo::Application"]!;
    for (const field of [
      "Name",
      "Description",
      "Author",
      "SpdxLicenseId",
      "LicenseUrl",
      "ReadmeUrl",
      "Labels",
      "HomePageUrl",
      "SemanticVersion",
      "SourceCodeUrl",
    ]) {
      expect(app[field]).toBeTruthy();
    }
    expect(app.SemanticVersion).toMatch(/^\d+\.\d+\.\d+$/);
    expect(existsSync(join(PROJECT_ROOT, String(app.LicenseUrl)))).toBe(true);
    expect(existsSync(join(PROJECT_ROOT, String(app.ReadmeUrl)))).toBe(true);
  });
});

describe("examples/template.yaml", () => {
  const examples = readTemplate(EXAMPLES_TEMPLATE);
  it("declares only resources with a name a build can embed, besides its HTTP API", () => {
    const others = examples.resources.filter((resource) => resource.type !== "AWS::Serverless::HttpApi");
    expect(others.filter((resource) => !(resource.type in NAMED_TYPES) || fixedName(resource) === null)).toEqual([]);
  });
  it("gives SsmParameter, Secret and DynamoDb each a Floor built as the demo's Floor is, with its twin's constants", () => {
    const demoFloor = functions.find((fn) => fn.logicalId === "Floor")!;
    expect(demoFloor.floorOf).toBe("Warp");
    const floors = examples.functions.filter((fn) => fn.floorOf !== null);
    expect(floors.map((fn) => [fn.logicalId, fn.floorOf])).toEqual([
      ["SsmParameterFloor", "SsmParameter"],
      ["SecretFloor", "Secret"],
      ["DynamoDbFloor", "DynamoDb"],
    ]);
    for (const floor of floors) {
      const twin = examples.functions.find((fn) => fn.logicalId === floor.floorOf)!;
      expect(floor.buildProperties).toEqual({ Profile: demoFloor.buildProperties.Profile, Define: twin.buildProperties.Define });
    }
  });
  it("outputs each function's name, for the bench's --stack", () => {
    const outputs = loadTemplate(EXAMPLES_TEMPLATE).Outputs as Record<string, { Value: unknown }>;
    for (const fn of examples.functions) expect(outputs[`${fn.logicalId}FunctionName`]!.Value).toEqual({ Ref: fn.logicalId });
  });
});

describe("Makefile", () => {
  /** What `make` would run for a target, without running it. */
  const dryRun = (makefile: string, target: string, env: Record<string, string> = {}) =>
    spawnSync("make", ["-n", "-f", makefile, target, "ARTIFACTS_DIR=/tmp/artifacts", ...Object.entries(env).map(([k, v]) => `${k}=${v}`)], {
      cwd: PROJECT_ROOT,
      encoding: "utf8",
    });

  it("has one pattern rule, no target per function", () => {
    const makefile = readFileSync(join(PROJECT_ROOT, "Makefile"), "utf8");
    expect(makefile.match(/^build-[^:\n]*:/gm)).toEqual(["build-%:"]);
  });

  it.each([
    [PROJECT_TEMPLATE, join(PROJECT_ROOT, "Makefile"), "AnyFunction"],
    [EXAMPLES_TEMPLATE, join(PROJECT_ROOT, "examples/Makefile"), "SsmParameter"],
  ])("builds with the template beside the Makefile SAM reads (%s)", (templateFile, makefile, id) => {
    const make = dryRun(makefile, `build-${id}`);
    expect(make.status).toBe(0);
    expect(make.stdout).toContain(`builder/build.mts --template "${templateFile}" "${id}" "/tmp/artifacts"`);
  });

  it("says how to install Node 22 when it is missing", () => {
    const make = spawnSync("make", ["-f", join(PROJECT_ROOT, "Makefile"), "build-Raw", "ARTIFACTS_DIR=/nonexistent", "WARPSTART_NODE=/nonexistent/node"], {
      encoding: "utf8",
    });
    expect(make.status).not.toBe(0);
    expect(make.stderr).toContain("Node 22 is not installed in tools/node22: run `bash scripts/setup.sh`");
  });
});

describe.each(["samconfig.toml", "examples/samconfig.toml"])("%s", (file) => {
  const config = parseToml(readFileSync(join(PROJECT_ROOT, file), "utf8")) as { default: Record<string, { parameters: Record<string, unknown> }> };
  it("builds in source and in parallel, validates with lint, deploys with capabilities, resolve_s3 and a changeset to confirm", () => {
    expect(config.default.build!.parameters).toMatchObject({ build_in_source: true, parallel: true });
    expect(config.default.validate!.parameters).toMatchObject({ lint: true });
    expect(config.default.deploy!.parameters).toMatchObject({ capabilities: "CAPABILITY_IAM", resolve_s3: true, confirm_changeset: true });
    expect(config.default.global!.parameters.stack_name).toMatch(/^warpstart/);
  });
});

describe("events/", () => {
  it("holds the one sample HTTP API v2 event every route's event is made from", () => {
    expect(JSON.parse(readFileSync(SAMPLE_EVENT, "utf8"))).toMatchObject({ version: "2.0", routeKey: "GET /", rawPath: "/", isBase64Encoded: false });
  });

  it.each(functions.map((fn) => [fn.logicalId, fn.httpPath!]))("makes %s's route event for %s", (_, path) => {
    expect(routeEvent(path, { calls: "3" })).toMatchObject({
      version: "2.0",
      routeKey: `GET ${path}`,
      rawPath: path,
      rawQueryString: "calls=3",
      queryStringParameters: { calls: "3" },
      requestContext: { http: { method: "GET", path }, routeKey: `GET ${path}`, stage: "$default" },
      isBase64Encoded: false,
    });
  });
});
