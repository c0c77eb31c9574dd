// `warpstart adopt` in process, on copies of the adopt fixture app (one function per builder and
// per reason not to adopt): what it writes, what it leaves, and the line a user sees for each.
// That an adopted app builds and answers: test/slow/package-install.test.mts.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { parse } from "yaml";
import { command } from "../../cli/adopt.mts";
import { parseCommand } from "../../core/options.mts";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { CFN_TAGS } from "../../core/template.mts";

const FIXTURE = join(PACKAGE_ROOT, "test/fixtures/sam-apps/adopt");
const scratch = mkdtempSync(join(tmpdir(), "warpstart-adopt-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the fixture app with the package installed in it (node_modules/warpstart), as npm install leaves it. */
function appCopy(installed = true): string {
  const app = mkdtempSync(join(scratch, "app-"));
  cpSync(FIXTURE, app, { recursive: true });
  if (installed) {
    mkdirSync(join(app, "node_modules"));
    symlinkSync(PACKAGE_ROOT, join(app, "node_modules/warpstart"));
  }
  return app;
}

/** Runs adopt in `app` with `args`: its exit code, what it printed, or the error it threw. */
async function adopt(app: string, ...args: string[]): Promise<{ code: number | null; out: string; error: string | null }> {
  const printed: string[] = [];
  const saved = { log: console.log, error: console.error };
  console.log = console.error = (line: unknown) => void printed.push(String(line));
  const cwd = process.cwd();
  process.chdir(app);
  try {
    const code = await command.run(parseCommand(command.spec, args));
    return { code, out: printed.join("\n"), error: null };
  } catch (error) {
    return { code: null, out: printed.join("\n"), error: (error as Error).message };
  } finally {
    process.chdir(cwd);
    Object.assign(console, saved);
  }
}

type Resource = { Metadata?: unknown; Properties: Record<string, unknown> };
const resources = (app: string) =>
  (parse(readFileSync(join(app, "template.yaml"), "utf8"), { customTags: CFN_TAGS }) as { Resources: Record<string, Resource> }).Resources;

describe("on an app of SAM's own builders", () => {
  const app = appCopy();
  const original = readFileSync(join(FIXTURE, "template.yaml"), "utf8");
  let run: Awaited<ReturnType<typeof adopt>>;
  beforeAll(async () => {
    run = await adopt(app);
  });

  it("moves the esbuild function: makefile, its profile and format, Handler naming the source, esbuild's own settings left behind", () => {
    expect(run.code).toBe(0);
    const orders = resources(app).Orders!;
    expect(orders.Metadata).toEqual({ BuildMethod: "makefile", BuildProperties: { Format: "esm", Profile: "Warp" } });
    expect(orders.Properties.Handler).toBe("src/app.handler");
    expect(run.out).toContain("Orders: adopted as Warp\n  Handler app.handler → src/app.handler");
    expect(run.out).toContain("SAM esbuild's Minify, Target, OutExtension left behind");
    expect(run.out).toContain(
      "orders/node_modules is not installed: sam build installs it there (npm install --omit=dev), as SAM's esbuild builder did in its build folder",
    );
  });

  it("moves the npm builder's CommonJS function as CommonJS, and names the SDK client the runtime gave it and the copy the build bundles", () => {
    expect(resources(app).Hello!.Metadata).toEqual({ BuildMethod: "makefile", BuildProperties: { Profile: "Warp", Format: "cjs" } });
    // The app installs no SDK: the build's tree is warpstart's own, which has this client (the build's note says the same).
    expect(run.out).toMatch(
      /it imports @aws-sdk\/client-s3, which hello\/package\.json does not list \(the runtime gave it\): the build bundles warpstart's own copy \(3\.\d+\.\d+\)/,
    );
  });

  it("writes a Makefile in each CodeUri folder that includes the package's rule and names the template", () => {
    const makefile = readFileSync(join(app, "orders/Makefile"), "utf8");
    expect(makefile).toContain("WARPSTART_TEMPLATE ?= $(abspath $(HERE)../template.yaml)");
    expect(makefile).toContain("WARPSTART_MK := $(HERE)../node_modules/warpstart/warpstart.mk");
    expect(existsSync(join(app, "hello/Makefile"))).toBe(true);
  });

  it("keeps a function on a deprecated runtime the pipeline builds for there, with the runtime's dates and where --runtime moves it", () => {
    expect(resources(app).Legacy!.Properties.Runtime).toBe("nodejs18.x");
    expect(resources(app).Legacy!.Metadata).toEqual({ BuildMethod: "makefile", BuildProperties: { Profile: "Warp", Format: "cjs" } });
    expect(run.out).toMatch(
      /Legacy: adopted as Warp\n {2}nodejs18\.x is deprecated since 2025-09-01 \(no more security patches; function creation blocked (from|since) 2027-02-01, updates blocked (from|since) 2027-03-03\) \(Lambda's runtime table, as cfn-lint's data of 2026-06-02 records it\): it stays there; --runtime nodejs22\.x or nodejs24\.x moves it \(npx warpstart bench --functions Legacy --runtimes node18,node22,node24 measures what that buys\)/,
    );
    // What its Warp build will say, said before adopt writes it.
    expect(run.out).toContain(
      "  Node 18 has no process.getBuiltinModule, which the chunk's loader uses: built without the chunk and its code cache (as Optimized, and no shared config files); Warp's code cache needs nodejs20.x or later",
    );
    expect(resources(app).Callback!.Properties.Runtime).toBe("nodejs20.x");
  });

  it("moves a function on a runtime the pipeline does not build for to nodejs22.x, in the diff, saying what the move could break", () => {
    expect(resources(app).Ancient!.Properties.Runtime).toBe("nodejs22.x");
    expect(run.out).toContain(
      "Ancient: adopted as Warp\n  Runtime nodejs16.x → nodejs22.x: the pipeline builds for nodejs18.x, nodejs20.x, nodejs22.x, nodejs24.x; nodejs16.x is deprecated since 2024-06-12",
    );
    expect(run.out).toContain("the doctor's checks find nothing the move breaks; npx warpstart invoke Ancient runs it on nodejs22.x in the lab");
    expect(run.out).toContain("-      Runtime: nodejs16.x\n+      Runtime: nodejs22.x");
  });

  it.each([
    ["OwnBuild", "it is built by a Makefile of the app's own (own-build/Makefile), which adopt never overwrites"],
    ["Resizer", "it is a container image (PackageType: Image): adopt takes zip functions"],
    [
      "Greeter",
      "its code is inline (InlineCode): the lab runs it as Lambda deploys it, but the pipeline builds a handler from its file: put it in a file its CodeUri names",
    ],
    ["Report", "python3.12 is not Node.js"],
    [
      "AncientV2",
      "it requires aws-sdk (the SDK v2), which nodejs16.x carries and no runtime the pipeline builds for does, so the move would fail its INIT: npm install aws-sdk in its package (or move to the v3 clients, @aws-sdk/client-*), then adopt it",
    ],
  ])("leaves %s as it was, and says why in one line", (id, why) => {
    expect(run.out).toContain(`${id}: not adopted: ${why}`);
    expect(resources(app)[id]).toEqual((parse(original, { customTags: CFN_TAGS }) as { Resources: Record<string, unknown> }).Resources[id]);
  });

  it("keeps the template's comments and every line it does not change, and prints the diff", () => {
    const now = readFileSync(join(app, "template.yaml"), "utf8");
    expect(now).toContain("# Plain CommonJS through SAM's npm builder; the SDK client it uses came from the runtime.");
    const was = original.split("\n");
    const is = now.split("\n");
    expect(is.filter((line) => !was.includes(line))).toEqual([
      "      Handler: src/app.handler",
      "        Profile: Warp",
      "        Profile: Warp",
      "        Format: cjs",
      // Legacy, Callback, and Ancient, which is moved.
      ...Array(2).fill(["        Profile: Warp", "        Format: cjs"]).flat(),
      "      Runtime: nodejs22.x",
      "        Profile: Warp",
      "        Format: cjs",
    ]);
    expect(was.filter((line) => !is.includes(line))).toEqual([
      "      BuildMethod: esbuild",
      "        Minify: true",
      "        Target: es2022",
      "        OutExtension:",
      "          - .js=.mjs",
      "        EntryPoints:",
      "          - src/app.ts",
      // Ancient's "Runtime: nodejs16.x" is changed too, but AncientV2 keeps a line like it.
    ]);
    expect(run.out).toContain("--- template.yaml\n+++ template.yaml");
    expect(run.out).toContain("+++ orders/Makefile");
  });

  it("says no package-lock.json pins what it builds, and that sam build should build in source", () => {
    expect(run.out).toContain("no package-lock.json: the functions are built from node_modules as they are installed");
    expect(run.out).toContain("samconfig.toml: set build_in_source = true under [default.build.parameters]");
  });

  it("run again: what it adopted is warpstart's already, and nothing is written", async () => {
    const again = await adopt(app);
    expect(again.out).toContain("Orders: not adopted: it is built by warpstart already");
    expect(again.code).toBe(1);
    expect(again.out).toContain("error: nothing adopted in template.yaml");
  });
});

it("leaves build_in_source unset where SAM's npm builder, still building a function in warpstart's own package, would prune warpstart", async () => {
  // One package at the app's root, warpstart among its devDependencies: a hook it cannot adopt stays on SAM's npm builder.
  const app = mkdtempSync(join(scratch, "app-"));
  writeFileSync(
    join(app, "template.yaml"),
    [
      'AWSTemplateFormatVersion: "2010-09-09"',
      "Transform: AWS::Serverless-2016-10-31",
      "Resources:",
      "  Base:",
      "    Type: AWS::Serverless::Function",
      "    Properties: { Handler: index.handler, Runtime: nodejs22.x }",
      "  Hook:",
      "    Type: AWS::Serverless::Function",
      "    Properties: { Handler: hook.handler, Runtime: nodejs16.x }",
      // What SAM's npm builder does not build: an image, inline code.
      "  Pic:",
      "    Type: AWS::Serverless::Function",
      "    Properties: { PackageType: Image, Runtime: nodejs22.x }",
      "  Greet:",
      "    Type: AWS::Serverless::Function",
      '    Properties: { InlineCode: "exports.handler = async () => 1;", Handler: index.handler, Runtime: nodejs22.x }',
      "",
    ].join("\n"),
  );
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "hooks", version: "1.0.0", devDependencies: { warpstart: "file:../warpstart.tgz" } }));
  writeFileSync(join(app, "index.js"), 'exports.handler = async () => "base";\n');
  writeFileSync(join(app, "hook.js"), 'const AWS = require("aws-sdk");\nexports.handler = async () => "hook";\n');
  mkdirSync(join(app, "node_modules"));
  symlinkSync(PACKAGE_ROOT, join(app, "node_modules/warpstart"));
  const run = await adopt(app, "--dry-run");
  expect(run.out).toContain("Base: adopted as Warp");
  expect(run.out).toContain("Hook: not adopted: it requires aws-sdk (the SDK v2)");
  expect(run.out).not.toContain("set build_in_source = true");
  expect(run.out).toContain(
    "samconfig.toml: build_in_source left unset: in source, SAM's npm builder, which still builds Hook, installs its package's production dependencies in place, removing warpstart (a devDependency) from node_modules; build the adopted functions in source by name (sam build <Function> --build-in-source)",
  );
});

it("--runtime moves every adopted function there, and says a callback handler fails on nodejs24.x", async () => {
  const app = appCopy();
  const run = await adopt(app, "--runtime", "nodejs24.x", "Callback", "Legacy");
  expect(run.code).toBe(0);
  expect(resources(app).Callback!.Properties.Runtime).toBe("nodejs24.x");
  expect(resources(app).Legacy!.Properties.Runtime).toBe("nodejs24.x");
  expect(run.out).toContain("Callback: adopted as Warp\n  Runtime nodejs20.x → nodejs24.x (--runtime); nodejs20.x is deprecated since 2026-04-30");
  expect(run.out).toContain(
    "its handler declares 3 parameters (a callback), which nodejs24.x refuses (Runtime.CallbackHandlerDeprecated: its INIT fails): make it an async handler of (event, context) first, or choose --runtime nodejs22.x",
  );
  expect(run.out).toContain("Legacy: adopted as Warp\n  Runtime nodejs18.x → nodejs24.x (--runtime)");
  expect(run.out).not.toContain(
    "Legacy: adopted as Warp\n  Runtime nodejs18.x → nodejs24.x (--runtime); nodejs18.x is deprecated since 2025-09-01 (no more security patches; function creation blocked from 2027-02-01, updates blocked from 2027-03-03) (Lambda's runtime table, as cfn-lint's data of 2026-06-02 records it)\n  its handler declares",
  );
});

it("says a callback handler fails on nodejs24.x where the function is there already, and Lambda refuses it too", async () => {
  const app = appCopy();
  const template = join(app, "template.yaml");
  const source = readFileSync(template, "utf8");
  writeFileSync(template, source.replace(/( {2}Callback:[\s\S]*?Runtime: )nodejs20\.x/, "$1nodejs24.x"));
  const run = await adopt(app, "Callback");
  expect(run.code).toBe(0);
  expect(run.out).toContain(
    "Callback: adopted as Warp\n  its handler declares 3 parameters (a callback), which nodejs24.x refuses (Runtime.CallbackHandlerDeprecated: its INIT fails), on Lambda as in the lab: make it an async handler of (event, context)",
  );
});

it("--runtime takes keep or a runtime the pipeline builds for, nothing else", async () => {
  const run = await adopt(appCopy(), "--runtime", "nodejs16.x");
  expect(run.error).toBe('--runtime must be keep, nodejs18.x, nodejs20.x, nodejs22.x or nodejs24.x, not "nodejs16.x"');
});

it("adopts a nested application's function in that application's template, its Makefile naming the app's template and the application", async () => {
  const app = mkdtempSync(join(scratch, "nested-"));
  cpSync(join(PACKAGE_ROOT, "test/fixtures/sam-apps/sam-shapes"), app, { recursive: true });
  mkdirSync(join(app, "node_modules"));
  symlinkSync(PACKAGE_ROOT, join(app, "node_modules/warpstart"));
  const parent = readFileSync(join(app, "template.yaml"), "utf8");
  const run = await adopt(app, "Parcels/Tracker", "Parcels/Labels/Printer");
  expect(run.code).toBe(0);
  expect(run.out).toContain("Parcels/Tracker: adopted as Warp in parcels/template.yaml\n  nodejs20.x is deprecated since 2026-04-30");
  expect(run.out).toContain("Parcels/Labels/Printer: adopted as Warp in parcels/labels/template.yaml");
  expect(readFileSync(join(app, "template.yaml"), "utf8")).toBe(parent);
  const child = parse(readFileSync(join(app, "parcels/template.yaml"), "utf8"), { customTags: CFN_TAGS }) as { Resources: Record<string, Resource> };
  expect(child.Resources.Tracker!.Metadata).toEqual({ BuildMethod: "makefile", BuildProperties: { Profile: "Warp", Format: "esm" } });
  const makefile = readFileSync(join(app, "parcels/tracker/Makefile"), "utf8");
  expect(makefile).toContain("WARPSTART_TEMPLATE ?= $(abspath $(HERE)../../template.yaml)\n");
  expect(makefile).toContain("WARPSTART_APPLICATION := Parcels/\n");
  expect(readFileSync(join(app, "parcels/labels/printer/Makefile"), "utf8")).toContain("WARPSTART_APPLICATION := Parcels/Labels/\n");
  expect(run.out).toContain("--- parcels/template.yaml\n+++ parcels/template.yaml");
});

it("gives the app's package.json the name and version SAM's npm builder needs, where npm install wrote it without them", async () => {
  const app = appCopy();
  writeFileSync(join(app, "package.json"), `${JSON.stringify({ devDependencies: { warpstart: "file:warpstart-0.1.0.tgz" } }, null, 2)}\n`);
  const run = await adopt(app, "Hello");
  expect(run.code).toBe(0);
  const name = basename(app).toLowerCase();
  expect(JSON.parse(readFileSync(join(app, "package.json"), "utf8"))).toEqual({
    name,
    version: "1.0.0",
    private: true,
    devDependencies: { warpstart: "file:warpstart-0.1.0.tgz" },
  });
  expect(run.out).toContain(`package.json: given a name and version (${name}, 1.0.0): SAM's npm builder packs the package, which npm refuses without them`);
  expect(run.out).toContain("--- package.json\n+++ package.json");
});

it("--dry-run prints the diff and writes nothing", async () => {
  const app = appCopy();
  const run = await adopt(app, "--dry-run", "--profile", "Optimized", "Hello");
  expect(run.code).toBe(0);
  expect(run.out).toContain("Hello: adopted as Optimized");
  expect(run.out).not.toContain("Orders:");
  expect(run.out).toContain("+        Profile: Optimized");
  expect(run.out).toContain("--dry-run: nothing written");
  expect(readFileSync(join(app, "template.yaml"), "utf8")).toBe(readFileSync(join(FIXTURE, "template.yaml"), "utf8"));
  expect(existsSync(join(app, "hello/Makefile"))).toBe(false);
});

describe("--measured: the profile the doctor measured fastest", () => {
  /** A doctor's --json report: Orders measured faster as Optimized than as Warp, Hello faster in neither. */
  const measured = (profile: string, deltaMs: number, deltaCi95: [number, number]) => ({
    profile,
    measured: { deltaMs, deltaCi95 },
    whyNotMeasured: null,
    note: null,
  });
  const report = {
    template: "template.yaml",
    functions: [
      { name: "Orders", profiles: [measured("Optimized", 40.2, [35.1, 44.9]), measured("Warp", 31.0, [26.3, 35.2])] },
      { name: "Hello", profiles: [measured("Optimized", 1.2, [-2.0, 4.1]), measured("Warp", -3.5, [-6.0, -1.1])] },
    ],
    skipped: [],
    measuring: { rounds: 5, lab: "lab" },
  };

  it("gives each function the profile measured fastest (95% interval above zero), the others --profile, and says which", async () => {
    const app = appCopy();
    writeFileSync(join(app, "doctor.json"), JSON.stringify(report));
    const run = await adopt(app, "--measured", "doctor.json", "--dry-run", "Orders", "Hello");
    expect(run.code).toBe(0);
    expect(run.out).toContain("Orders: adopted as Optimized (doctor.json: 40.2 ms faster than as it was)");
    expect(run.out).toContain("Hello: adopted as Warp (doctor.json measured no profile faster than it was)");
    expect(run.out).toContain("+        Profile: Optimized");
  });

  it("a function the report did not measure gets --profile, and says so", async () => {
    const app = appCopy();
    writeFileSync(join(app, "doctor.json"), JSON.stringify({ ...report, functions: [] }));
    expect((await adopt(app, "--measured", "doctor.json", "--profile", "Optimized", "--dry-run", "Orders")).out).toContain(
      "Orders: adopted as Optimized (doctor.json did not measure it)",
    );
  });

  it.each([
    ["missing.json", null, "missing.json does not exist: write it with npx warpstart doctor --json missing.json, then adopt --measured missing.json"],
    ["broken.json", "{ not json", "broken.json is not JSON ("],
    ["other.json", JSON.stringify({ findings: [] }), "other.json is not a doctor's report: --measured takes the report of npx warpstart doctor --json FILE"],
  ])("%s: says what is wrong with it, and writes nothing", async (file, content, message) => {
    const app = appCopy();
    if (content !== null) writeFileSync(join(app, file), content);
    expect((await adopt(app, "--measured", file)).error).toContain(message);
    expect(readFileSync(join(app, "template.yaml"), "utf8")).toBe(readFileSync(join(FIXTURE, "template.yaml"), "utf8"));
  });
});

describe("what it refuses, with the message a user sees", () => {
  it("an app that has not installed the package", async () => {
    const app = appCopy(false);
    expect((await adopt(app)).error).toBe(
      `warpstart is not installed in ${app}: the Makefiles adopt writes include its rule (node_modules/warpstart/warpstart.mk). Run npm install --save-dev warpstart (or the packed tarball: npm install --save-dev ./warpstart-<version>.tgz) there first`,
    );
    expect(readFileSync(join(app, "template.yaml"), "utf8")).toBe(readFileSync(join(FIXTURE, "template.yaml"), "utf8"));
  });

  it.each([
    ["cdk.json", "is a CDK app (cdk.json), not a SAM app"],
    ["serverless.yml", "is a Serverless Framework project (serverless.yml), not a SAM app"],
  ])("a folder with %s and no template.yaml", async (file, message) => {
    const app = mkdtempSync(join(scratch, "other-"));
    writeFileSync(join(app, file), "{}\n");
    expect((await adopt(app)).error).toBe(
      `${app} ${message}: adopt moves the functions of a SAM template (template.yaml)${file === "cdk.json" ? "; CDK's NodejsFunction builds with esbuild itself" : ""}`,
    );
  });

  it("CloudFormation that is not SAM", async () => {
    const app = mkdtempSync(join(scratch, "cfn-"));
    writeFileSync(
      join(app, "template.yaml"),
      "Resources:\n  Fn:\n    Type: AWS::Lambda::Function\n    Properties: { Runtime: nodejs22.x, Handler: index.handler }\n",
    );
    expect((await adopt(app)).error).toBe(
      `${join(app, "template.yaml")} is not a SAM template (no Transform: AWS::Serverless-2016-10-31): adopt moves the functions of a SAM app`,
    );
  });

  it("an app with no Node.js function: each one's line, and nothing adopted", async () => {
    const app = appCopy();
    const run = await adopt(app, "Report", "Resizer");
    expect(run.code).toBe(1);
    expect(run.out).toContain("Report: not adopted: python3.12 is not Node.js");
    expect(run.out).toContain("Resizer: not adopted: it is a container image");
    expect(run.out).toContain("error: nothing adopted in template.yaml");
  });

  it("a function the template does not have", async () => {
    const app = appCopy();
    expect((await adopt(app, "Nope")).error).toBe(
      "Nope is not a function of template.yaml; its functions: Orders, Hello, Legacy, Callback, Ancient, AncientV2, OwnBuild, Greeter, Resizer, Report",
    );
  });

  it.each([
    ["yarn.lock", "yarn.lock: the pipeline bundles node_modules as Yarn installed them"],
    ["pnpm-lock.yaml", "pnpm-lock.yaml: the pipeline bundles node_modules as pnpm links them"],
  ])("a %s: one line, and the rest adopted", async (lockfile, line) => {
    const app = appCopy();
    writeFileSync(join(app, lockfile), "\n");
    const run = await adopt(app, "--dry-run", "Hello");
    expect(run.out).toContain(line);
    expect(run.out).toContain("Hello: adopted as Warp");
  });

  it("a template with Fn::ForEach: one line for what it makes, the rest adopted", async () => {
    const app = appCopy();
    const text = readFileSync(join(app, "template.yaml"), "utf8")
      .replace("Transform: AWS::Serverless-2016-10-31", "Transform:\n  - AWS::LanguageExtensions\n  - AWS::Serverless-2016-10-31")
      .replace(
        "Resources:\n",
        `Resources:\n  Fn::ForEach::Workers:\n    - Name\n    - [A, B]\n    - Worker\${Name}:\n        Type: AWS::Serverless::Function\n        Properties: { CodeUri: hello/, Handler: app.lambdaHandler }\n`,
      );
    writeFileSync(join(app, "template.yaml"), text);
    const run = await adopt(app, "--dry-run", "Hello");
    expect(run.out).toContain("Fn::ForEach::Workers: the functions it makes are not adopted");
    expect(run.out).toContain("Hello: adopted as Warp");
  });
});
