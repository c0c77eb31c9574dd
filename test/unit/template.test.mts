// template.yaml, examples/template.yaml, samconfig.toml, the Makefile and events/ agree with each
// other, with the profiles (builder/profiles.mts) and the runtimes (core/runtimes.mts).
// `sam validate --lint` runs in the integration project.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { EXAMPLES_TEMPLATE, PROJECT_ROOT, PROJECT_TEMPLATE } from "../../core/paths.mts";
import { loadTemplate, readTemplate, templateFunctions } from "../../core/template.mts";
import { SAMPLE_EVENT } from "../../emulation/events.mts";
import { fixedName, NAMED_TYPES } from "../../emulation/local-aws/resources.mts";
import { everyFunctionBuilds, keyPaths, templateYamlChecks } from "../support/template-checks.mts";

describe("template.yaml", () => {
  // Also run on a copy with a user's function added (test/slow/user-function.test.mts).
  templateYamlChecks(PROJECT_TEMPLATE);
});

describe("examples/template.yaml", () => {
  const examples = readTemplate(EXAMPLES_TEMPLATE);
  everyFunctionBuilds(EXAMPLES_TEMPLATE);
  it("has no Environment block anywhere: build-time constants instead", () => {
    expect(keyPaths(loadTemplate(EXAMPLES_TEMPLATE)).filter((path) => /(^|\.)Environment$/.test(path))).toEqual([]);
  });
  it("declares only resources with a name a build can embed, besides its HTTP API", () => {
    const others = examples.resources.filter((resource) => resource.type !== "AWS::Serverless::HttpApi");
    expect(others.filter((resource) => !(resource.type in NAMED_TYPES) || fixedName(resource) === null)).toEqual([]);
  });
  it("gives SsmParameter, Secret and DynamoDb each a Floor built as the demo's Floor is, with its twin's constants", () => {
    const demoFloor = templateFunctions(PROJECT_TEMPLATE).find((fn) => fn.logicalId === "Floor")!;
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
    expect(make.stdout).toContain(`cli/warpstart.mts build --template "${templateFile}" "${id}" "/tmp/artifacts"`);
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
});
