// template.yaml, examples/template.yaml, samconfig.toml, the Makefile and events/ agree with each
// other, with the profiles (builder/profiles.mts) and the runtimes (core/runtimes.mts).
// `sam validate --lint` runs in the integration project.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { makefileText } from "../../adoption/plan.mts";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { fixedName, NAMED_TYPES, readTemplate, templateAsWritten } from "../../core/template.mts";
import { SAMPLE_EVENT } from "../../emulation/events.mts";
import { DEMO_ROOT, DEMO_TEMPLATE, EXAMPLES_TEMPLATE } from "../support/demo.mts";
import { everyFunctionBuilds, keyPaths, templateYamlChecks } from "../support/template-checks.mts";

describe("template.yaml", () => {
  // Also run on a copy with a user's function added (test/slow/user-function.test.mts).
  templateYamlChecks(DEMO_TEMPLATE);
});

describe("examples/template.yaml", () => {
  const examples = readTemplate(EXAMPLES_TEMPLATE);
  everyFunctionBuilds(EXAMPLES_TEMPLATE);
  it("has no Environment block anywhere: build-time constants instead", () => {
    expect(keyPaths(templateAsWritten(EXAMPLES_TEMPLATE)).filter((path) => /(^|\.)Environment$/.test(path))).toEqual([]);
  });
  it("declares only resources with a name a build can embed, besides its HTTP API", () => {
    const others = examples.resources.filter((resource) => resource.type !== "AWS::Serverless::HttpApi");
    expect(others.filter((resource) => !(resource.type in NAMED_TYPES) || fixedName(resource) === null)).toEqual([]);
  });
  it("gives SsmParameter, Secret and DynamoDb each a Floor built as the demo's Floor is, with its twin's constants", () => {
    const demoFloor = readTemplate(DEMO_TEMPLATE).functions.find((fn) => fn.logicalId === "Floor")!;
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
    const outputs = templateAsWritten(EXAMPLES_TEMPLATE).Outputs as Record<string, { Value: unknown }>;
    for (const fn of examples.functions) expect(outputs[`${fn.logicalId}FunctionName`]!.Value).toEqual({ Ref: fn.logicalId });
  });
});

describe("Makefile", () => {
  /** What `make` would run for a target, without running it. */
  const dryRun = (makefile: string, target: string, env: Record<string, string> = {}) =>
    spawnSync("make", ["-n", "-f", makefile, target, "ARTIFACTS_DIR=/tmp/artifacts", ...Object.entries(env).map(([k, v]) => `${k}=${v}`)], {
      cwd: DEMO_ROOT,
      encoding: "utf8",
    });

  it("has one pattern rule, the package's, no target per function", () => {
    expect(readFileSync(join(DEMO_ROOT, "Makefile"), "utf8")).toContain("node_modules/warpstart/warpstart.mk");
    const rules = readFileSync(join(PACKAGE_ROOT, "warpstart.mk"), "utf8");
    expect(rules.match(/^build-[^:\n]*:/gm)).toEqual(["build-%:"]);
  });

  it.each([
    [DEMO_TEMPLATE, join(DEMO_ROOT, "Makefile"), "AnyFunction"],
    [EXAMPLES_TEMPLATE, join(DEMO_ROOT, "examples/Makefile"), "SsmParameter"],
  ])("builds with the template beside the Makefile SAM reads (%s)", (templateFile, makefile, id) => {
    const make = dryRun(makefile, `build-${id}`);
    expect(make.status).toBe(0);
    expect(make.stdout).toContain(`node "${join(PACKAGE_ROOT, "warpstart.mjs")}" build --template "${templateFile}" "${id}" "/tmp/artifacts"`);
  });

  it.each([
    ["the demo's", DEMO_ROOT, DEMO_ROOT],
    ["the examples'", join(DEMO_ROOT, "examples"), DEMO_ROOT],
    ["the starter's", join(DEMO_ROOT, "starter/{{cookiecutter.project_name}}"), join(DEMO_ROOT, "starter/{{cookiecutter.project_name}}")],
  ])("%s is the one Makefile adopt writes", (_, dir, installedIn) => {
    expect(readFileSync(join(dir, "Makefile"), "utf8")).toBe(
      makefileText(dir, join(dir, "template.yaml"), join(installedIn, "node_modules/warpstart/warpstart.mk")),
    );
  });

  it("says to install the package when the app has not", () => {
    const app = mkdtempSync(join(tmpdir(), "warpstart-makefile-"));
    try {
      copyFileSync(join(DEMO_ROOT, "Makefile"), join(app, "Makefile"));
      const make = spawnSync("make", ["-f", join(app, "Makefile"), "build-Raw", "ARTIFACTS_DIR=/nonexistent"], { encoding: "utf8" });
      expect(make.status).not.toBe(0);
      expect(make.stderr).toContain(`warpstart is not installed (${app}/node_modules/warpstart/warpstart.mk is missing): run npm install`);
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });
});

describe.each(["samconfig.toml", "examples/samconfig.toml"])("%s", (file) => {
  const config = parseToml(readFileSync(join(DEMO_ROOT, file), "utf8")) as { default: Record<string, { parameters: Record<string, unknown> }> };
  it("builds in source and in parallel, validates with lint, deploys with capabilities, resolve_s3 and a changeset to confirm", () => {
    expect(config.default.build!.parameters).toMatchObject({ build_in_source: true, parallel: true });
    expect(config.default.validate!.parameters).toMatchObject({ lint: true });
    expect(config.default.deploy!.parameters).toMatchObject({ capabilities: "CAPABILITY_IAM", resolve_s3: true, confirm_changeset: true });
    expect(config.default.global!.parameters.stack_name).toMatch(/^warpstart/);
  });
});

describe("the sample HTTP API event", () => {
  it("is the one HTTP API v2 event every route's event is made from", () => {
    expect(JSON.parse(readFileSync(SAMPLE_EVENT, "utf8"))).toMatchObject({ version: "2.0", routeKey: "GET /", rawPath: "/", isBase64Encoded: false });
  });
});
