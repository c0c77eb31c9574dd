// template.yaml's checks as functions over a template file, so that the same checks run on the
// project's template (test/unit/template.test.mts, load-test.test.mts) and on a copy to which a
// user added a function (test/slow/user-function.test.mts). Every function is held to what
// SAM and the build need; the demo's functions (DEMO_FUNCTIONS) also to the demo's conventions.
import { existsSync } from "node:fs";
import { functionBuild, templateDefines } from "../../builder/build.mts";
import { handlerSource } from "../../builder/handler.mts";
import { PROFILE_NAMES } from "../../builder/profiles.mts";
import { scaledConfig } from "../../cli/load.mts";
import { CUSTOM_RUNTIMES, DEFAULT_RUNTIME, RUNTIMES, type Runtime, TEMPLATE_RUNTIMES } from "../../core/runtimes.mts";
import { readTemplate, templateAsWritten } from "../../core/template.mts";
import { routeEvent } from "../../emulation/events.mts";
import { DEMO_FUNCTIONS } from "./demo-functions.mts";

/** Every key path in a nested value, e.g. "Resources.Raw.Properties.Environment". */
export function keyPaths(value: unknown, prefix = ""): string[] {
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, child]) => [`${prefix}${key}`, ...keyPaths(child, `${prefix}${key}.`)]);
}

/** What SAM and the build need of every function of a template: the makefile builder, a known profile, a handler source, constants it can embed. */
export function everyFunctionBuilds(file: string): void {
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
}

/** template.yaml's checks, on `file`: its Globals, parameters and layers, every function's build, and the demo's conventions for the demo's functions. */
export function templateYamlChecks(file: string): void {
  const template = templateAsWritten(file);
  const functions = readTemplate(file).functions;
  const resources = template.Resources;
  /** Globals and the demo's functions as written: where the demo's conventions hold. */
  const demo = { Globals: template.Globals, ...Object.fromEntries(DEMO_FUNCTIONS.map((name) => [name, resources[name]])) };

  everyFunctionBuilds(file);

  it("holds every demo function, and builds the identity handler in every profile", () => {
    expect(functions.map((fn) => fn.logicalId)).toEqual(expect.arrayContaining([...DEMO_FUNCTIONS]));
    const identity = functions
      .filter((fn) => fn.handler === "src/functions/identity/index.handler")
      .map((fn) => functionBuild(readTemplate(file), fn.logicalId).profileName);
    expect(identity).toEqual(expect.arrayContaining([...PROFILE_NAMES]));
  });

  it("has no Environment block in Globals or in a demo function: build-time constants instead", () => {
    expect(keyPaths(demo).filter((path) => /(^|\.)Environment$/.test(path))).toEqual([]);
  });

  it("sets arm64, 512 MB, a timeout and the runtime from the Runtime parameter in Globals, which every demo function keeps", () => {
    const globals = template.Globals!.Function!;
    expect(globals).toMatchObject({
      Architectures: ["arm64"],
      MemorySize: 512,
      Runtime: { "Fn::FindInMap": ["Runtimes", { Ref: "Runtime" }, "Lambda"] },
      AutoPublishAlias: "live",
    });
    expect(globals.Timeout).toEqual(expect.any(Number));
    expect(template.Parameters!.Runtime).toMatchObject({ Default: DEFAULT_RUNTIME, AllowedValues: TEMPLATE_RUNTIMES });
    const settings = DEMO_FUNCTIONS.map((name) => functions.find((fn) => fn.logicalId === name)).map((fn) => [fn?.logicalId, fn?.architecture, fn?.memoryMb]);
    expect(settings).toEqual(DEMO_FUNCTIONS.map((name) => [name, "arm64", 512]));
  });

  it("maps every runtime a template offers (core/runtimes.mts) to its Lambda runtime identifier", () => {
    const mapped = Object.fromEntries(Object.entries(template.Mappings!.Runtimes!).map(([name, row]) => [name, row.Lambda]));
    expect(mapped).toEqual(Object.fromEntries(TEMPLATE_RUNTIMES.map((name) => [name, RUNTIMES[name].lambdaRuntime])));
  });

  it.each(TEMPLATE_RUNTIMES)("puts every function on %s when the Runtime parameter says so, with its layer if it is a custom runtime", (name) => {
    const runtime: Runtime = RUNTIMES[name];
    for (const fn of readTemplate(file, { Runtime: name }).functions) {
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

  it("grants the demo functions no IAM permissions (GetCallerIdentity needs none) and allows them no Resource '*'", () => {
    expect(keyPaths(demo).filter((path) => /\.(Policies|Role|Statement)$/.test(path))).toEqual([]);
    expect(JSON.stringify(demo)).not.toMatch(/"Resource":"\*"/);
  });

  it.each(DEMO_FUNCTIONS)("logs %s to a log group with retention", (name) => {
    const logGroup = (resources[name]!.Properties!.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
    expect(resources[logGroup]).toMatchObject({ Type: "AWS::Logs::LogGroup", Properties: { RetentionInDays: { Ref: "LogRetentionInDays" } } });
  });

  it.each(DEMO_FUNCTIONS)("routes GET /%s to its function on the HTTP API", (name) => {
    expect(functions.find((fn) => fn.logicalId === name)!.httpPath).toBe(`/${name.toLowerCase()}`);
  });

  it("outputs the API URL, the runtime and each demo function's name and alias ARN", () => {
    const outputs = template.Outputs as Record<string, { Value: unknown }>;
    expect(outputs.ApiUrl).toBeDefined();
    expect(outputs.Runtime!.Value).toEqual({ Ref: "Runtime" });
    for (const name of DEMO_FUNCTIONS) {
      expect(outputs[`${name}FunctionName`]!.Value).toEqual({ Ref: name });
      expect(outputs[`${name}AliasArn`]!.Value).toEqual({ Ref: `${name}.Alias` });
    }
  });

  it.each(functions.filter((fn) => fn.httpPath).map((fn) => [fn.logicalId, fn.httpPath!]))("makes %s's route event for %s", (_, path) => {
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
}

/** load_test/: one scenario per GET route of `file`, named after its function, in template order; each of `routed` has one. */
export function loadScenarioChecks(file: string, routed: readonly string[]): void {
  it(`gets one scenario per HTTP API route of ${file}, named after its function`, () => {
    const routes = readTemplate(file)
      .functions.filter((fn) => fn.httpPath)
      .map((fn) => ({ name: fn.logicalId, url: fn.httpPath }));
    const { scenarios } = scaledConfig(file, 6);
    expect(scenarios.map((scenario) => ({ name: scenario.name, url: scenario.flow[0]!.get.url }))).toEqual(routes);
    expect(scenarios.map((scenario) => scenario.name)).toEqual(expect.arrayContaining([...routed]));
    for (const scenario of scenarios) expect(scenario.flow[0]!.get).toMatchObject({ name: scenario.name, afterResponse: "countColdStarts" });
  });
}
