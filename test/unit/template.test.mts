// template.yaml, samconfig.toml, the Makefile and events/ agree with each other and with the
// variant table (build/variants.mts). `sam validate --lint` runs in the integration project.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CUSTOM_RUNTIMES, DEFAULT_RUNTIME, type Runtime, RUNTIME_NAMES, RUNTIMES } from "../../build/runtimes.mts";
import { VARIANT_NAMES } from "../../build/variants.mts";
import { variantEvent } from "../../lab/events.mts";
import { PROJECT_ROOT } from "../../lab/paths.mts";
import { loadTemplate, templateFunctions } from "../../lab/template.mts";

const TEMPLATE = join(PROJECT_ROOT, "template.yaml");
const template = loadTemplate(TEMPLATE);
const functions = templateFunctions(TEMPLATE);
const resources = template.Resources;

/** Every key path in a nested value, e.g. "Resources.Raw.Properties.Environment". */
function keyPaths(value: unknown, prefix = ""): string[] {
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, child]) => [`${prefix}${key}`, ...keyPaths(child, `${prefix}${key}.`)]);
}

describe("template.yaml", () => {
  it("has one function per variant, nothing else", () => {
    expect(functions.map((fn) => fn.logicalId).sort()).toEqual([...VARIANT_NAMES].sort());
  });

  it("has no Environment block anywhere", () => {
    expect(keyPaths(template).filter((path) => /(^|\.)Environment$/.test(path))).toEqual([]);
  });

  it("sets arm64, 512 MB, a timeout and the runtime from the Runtime parameter in Globals", () => {
    const globals = template.Globals!.Function!;
    expect(globals).toMatchObject({ Architectures: ["arm64"], MemorySize: 512, Runtime: { "Fn::FindInMap": ["Runtimes", { Ref: "Runtime" }, "Lambda"] }, AutoPublishAlias: "live" });
    expect(globals.Timeout).toEqual(expect.any(Number));
    expect(template.Parameters!.Runtime).toMatchObject({ Default: DEFAULT_RUNTIME, AllowedValues: RUNTIME_NAMES });
  });

  it("maps every runtime of build/runtimes.mts to its Lambda runtime identifier", () => {
    const mapped = Object.fromEntries(Object.entries(template.Mappings!.Runtimes!).map(([name, row]) => [name, row.Lambda]));
    expect(mapped).toEqual(Object.fromEntries(RUNTIME_NAMES.map((name) => [name, RUNTIMES[name].lambdaRuntime])));
  });

  it.each(RUNTIME_NAMES)("puts every function on %s when the Runtime parameter says so, with its layer if it is a custom runtime", (name) => {
    const runtime: Runtime = RUNTIMES[name];
    for (const fn of templateFunctions(TEMPLATE, { Runtime: name })) {
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
    expect((template.Conditions as Record<string, unknown>).HasProvisionedConcurrency).toEqual({ "Fn::Not": [{ "Fn::Equals": [{ Ref: "ProvisionedConcurrency" }, 0] }] });
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

  it.each(VARIANT_NAMES)("builds %s with the makefile builder and logs to a log group with retention", (name) => {
    expect(resources[name]!.Metadata).toEqual({ BuildMethod: "makefile" });
    const logGroup = (resources[name]!.Properties!.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
    expect(resources[logGroup]).toMatchObject({ Type: "AWS::Logs::LogGroup", Properties: { RetentionInDays: { Ref: "LogRetentionInDays" } } });
  });

  it.each(VARIANT_NAMES)("routes GET /%s to its function on the HTTP API", (name) => {
    expect(functions.find((fn) => fn.logicalId === name)!.httpPath).toBe(`/${name.toLowerCase()}`);
  });

  it("outputs the API URL, the runtime and each function's name and alias ARN", () => {
    const outputs = template.Outputs as Record<string, { Value: unknown }>;
    expect(outputs.ApiUrl).toBeDefined();
    expect(outputs.Runtime!.Value).toEqual({ Ref: "Runtime" });
    for (const name of VARIANT_NAMES) {
      expect(outputs[`${name}FunctionName`]!.Value).toEqual({ Ref: name });
      expect(outputs[`${name}AliasArn`]!.Value).toEqual({ Ref: `${name}.Alias` });
    }
  });

  it("has the Serverless Application Repository metadata sam publish needs", () => {
    const app = (template.Metadata as Record<string, Record<string, unknown>>)["AWS::ServerlessRepo::Application"]!;
    for (const field of ["Name", "Description", "Author", "SpdxLicenseId", "LicenseUrl", "ReadmeUrl", "Labels", "HomePageUrl", "SemanticVersion", "SourceCodeUrl"]) {
      expect(app[field]).toBeTruthy();
    }
    expect(app.SemanticVersion).toMatch(/^\d+\.\d+\.\d+$/);
    expect(existsSync(join(PROJECT_ROOT, String(app.LicenseUrl)))).toBe(true);
    expect(existsSync(join(PROJECT_ROOT, String(app.ReadmeUrl)))).toBe(true);
  });
});

describe("Makefile", () => {
  const makefile = readFileSync(join(PROJECT_ROOT, "Makefile"), "utf8");
  it.each(VARIANT_NAMES)("has a build-%s target that runs the one build script", (name) => {
    expect(makefile).toMatch(new RegExp(`^[^\\n]*\\bbuild-${name}\\b[^\\n]*:`, "m"));
  });
  it("passes the variant name and $(ARTIFACTS_DIR) to build/build.mts", () => {
    expect(makefile).toContain('$(WARPSTART_NODE) $(ROOT)build/build.mts $(@:build-%=%) "$(ARTIFACTS_DIR)"');
  });
  it.each(CUSTOM_RUNTIMES.map((runtime) => runtime.layer!))("has a build-%s target that runs the layer build", (layer) => {
    expect(makefile).toMatch(new RegExp(`^[^\\n]*\\bbuild-${layer}\\b[^\\n]*:\\n\\t\\$\\(WARPSTART_NODE\\) \\$\\(ROOT\\)build/runtime-layer\\.mts`, "m"));
  });
  it("says how to install Node 22 when it is missing", () => {
    const make = spawnSync("make", ["-f", join(PROJECT_ROOT, "Makefile"), "build-Raw", "ARTIFACTS_DIR=/nonexistent", "WARPSTART_NODE=/nonexistent/node"], { encoding: "utf8" });
    expect(make.status).not.toBe(0);
    expect(make.stderr).toContain("Node 22 is not installed in tools/node22: run `bash scripts/setup.sh`");
  });
});

describe("samconfig.toml", () => {
  const samconfig = readFileSync(join(PROJECT_ROOT, "samconfig.toml"), "utf8");
  it.each([
    ["builds in source", /\[default\.build\.parameters\][^[]*build_in_source = true/],
    ["builds in parallel", /\[default\.build\.parameters\][^[]*parallel = true/],
    ["validates with lint", /\[default\.validate\.parameters\][^[]*lint = true/],
    ["deploys with capabilities, resolve_s3 and a changeset to confirm", /\[default\.deploy\.parameters\](?=[^[]*capabilities = )(?=[^[]*resolve_s3 = true)(?=[^[]*confirm_changeset = true)/],
    ["names the stack", /stack_name = "warpstart"/],
  ])("%s", (_, pattern) => {
    expect(samconfig).toMatch(pattern);
  });
});

describe("events/", () => {
  it.each(functions.map((fn) => [fn.logicalId, fn.httpPath!]))("has an HTTP API v2 event for %s's route %s", (_, path) => {
    const event = variantEvent(path.slice(1));
    expect(event).toMatchObject({
      version: "2.0",
      routeKey: `GET ${path}`,
      rawPath: path,
      requestContext: { http: { method: "GET", path }, stage: "$default" },
      isBase64Encoded: false,
    });
  });
});
