// What `npm run doctor -- --fix` writes into a user's template (adoption/template-edit.mts): the
// changed properties only, in place, on the apps' templates of test/fixtures/app-shapes (and the
// layouts their owners' editors leave: single quotes, trailing spaces, lists at their key's
// indentation). The diff --fix prints is tested in unified-diff.test.mts.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { editTemplate, type TemplateChange } from "../../adoption/template-edit.mts";
import { unifiedDiff } from "../../adoption/unified-diff.mts";
import { UNUSED_CREDENTIAL_PROVIDERS } from "../../builder/profiles.mts";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { type Template, type TemplateResourceEntry, templateAsWritten } from "../../core/template.mts";
import { COMMONJS_BANNER } from "../../doctor/checks.mts";

const APPS = join(PACKAGE_ROOT, "test/fixtures/app-shapes");
const templateOf = (app: string) => join(APPS, app, "template.yaml");
const scratch = mkdtempSync(join(tmpdir(), "template-edit-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The template as core/template.mts reads it, from text. */
function reread(text: string): Template {
  const file = join(scratch, "template.yaml");
  writeFileSync(file, text);
  return templateAsWritten(file);
}

type Rewrite = (resource: TemplateResourceEntry) => void;

const buildPropertiesOf = (resource: TemplateResourceEntry): Record<string, unknown> => {
  resource.Metadata ??= {};
  resource.Metadata.BuildProperties ??= {};
  return resource.Metadata.BuildProperties as Record<string, unknown>;
};

// The checks' fixes' rewrites (doctor/checks.mts), as they change a resource.
const toEsm: Rewrite = (resource) => void Object.assign(buildPropertiesOf(resource), { Format: "esm", OutExtension: [".js=.mjs"] });
const withBanner: Rewrite = (resource) => {
  toEsm(resource);
  buildPropertiesOf(resource).Banner = [`js=${COMMONJS_BANNER}`];
};
const withoutSourceMaps: Rewrite = (resource) => {
  buildPropertiesOf(resource).Sourcemap = false;
  resource.Properties ??= {};
  const environment = resource.Properties.Environment as { Variables?: Record<string, unknown> } | undefined;
  resource.Properties.Environment = { ...environment, Variables: { ...environment?.Variables, NODE_OPTIONS: "" } };
};
const withoutFormat: Rewrite = (resource) => void delete buildPropertiesOf(resource).Format;
const withoutSdk: Rewrite = (resource) => {
  const properties = buildPropertiesOf(resource);
  // SAM's builder takes a list or one comma-separated string.
  const external =
    typeof properties.External === "string"
      ? properties.External.split(",").map((entry) => entry.trim())
      : ((properties.External as string[] | undefined) ?? []);
  properties.External = [...external.filter((entry) => !entry.startsWith("@aws-sdk/")), ...UNUSED_CREDENTIAL_PROVIDERS];
};
const keepAlive: Rewrite = (resource) => {
  const properties = buildPropertiesOf(resource);
  properties.Define = { ...(properties.Define as object), KEEP_ALIVE: true };
};
const onNode22: Rewrite = (resource) => {
  resource.Properties ??= {};
  resource.Properties.Runtime = "nodejs22.x";
};

/** The change of `rewrites` to `logicalId` of `text`, with `before` as core/template.mts reads it. */
function changeOf(text: string, logicalId: string, ...rewrites: Rewrite[]): TemplateChange {
  const before = reread(text).Resources[logicalId]!;
  const after = structuredClone(before);
  for (const rewrite of rewrites) rewrite(after);
  return { logicalId, before, after };
}

/** The template edited, checked to read back as `after` with every other resource as it was. */
function fixed(text: string, logicalId: string, ...rewrites: Rewrite[]) {
  const change = changeOf(text, logicalId, ...rewrites);
  const edited = editTemplate(text, [change]);
  const { Resources: resources, ...rest } = reread(edited);
  const { Resources: originalResources, ...originalRest } = reread(text);
  expect(resources[logicalId]).toEqual(change.after);
  expect({ ...resources, [logicalId]: null }).toEqual({ ...originalResources, [logicalId]: null });
  expect(rest).toEqual(originalRest);
  return { edited, after: change.after };
}

/** The lines a diff removes and adds, in order. */
const changedLines = (before: string, after: string) =>
  unifiedDiff(before, after, "template.yaml")
    .split("\n")
    .filter((line) => /^[-+]/.test(line) && !/^(---|\+\+\+) /.test(line));

const commentsOf = (text: string) => text.split("\n").filter((line) => line.trimStart().startsWith("#"));

describe("editTemplate on an app's template: only the changed properties' lines change", () => {
  const powertools = readFileSync(templateOf("fleet-api"), "utf8");

  it("commonjs (an ES module, with the createRequire banner): Format changed, OutExtension and a long Banner added to its BuildProperties", () => {
    // As its owner's editor left it: the blank line that ends getBikeFunction keeps four spaces.
    const asLeft = powertools.replace("          - functions/get-bike/index.ts\n\n", "          - functions/get-bike/index.ts\n    \n");
    expect(asLeft).not.toBe(powertools);
    const { edited, after } = fixed(asLeft, "getBikeFunction", withBanner);
    expect(changedLines(asLeft, edited)).toEqual([
      "-        Format: cjs",
      "+        Format: esm",
      "+        OutExtension:",
      "+          - .js=.mjs",
      "+        Banner:",
      `+          - js=${COMMONJS_BANNER}`,
    ]);
    // The banner's quotes and semicolons read back as written.
    expect(reread(edited).Resources.getBikeFunction!.Metadata!.BuildProperties).toEqual(after.Metadata!.BuildProperties);
    expect(commentsOf(edited)).toEqual(commentsOf(powertools));
    // Added after EntryPoints, before the blank line (with its trailing spaces) that ends the function.
    expect(edited).toContain(`          - functions/get-bike/index.ts\n        OutExtension:\n`);
    expect(edited).toContain(`__dirname = __esmFixDirname(__filename);\n    \n  # Log group for getBikeFunction`);
  });

  it("source-maps: a scalar changed where it is, NODE_OPTIONS added beside the function's !Ref variables", () => {
    const { edited } = fixed(powertools, "registerBikeFunction", withoutSourceMaps);
    expect(changedLines(powertools, edited)).toEqual(['+          NODE_OPTIONS: ""', "-        Sourcemap: true", "+        Sourcemap: false"]);
    expect(edited).toContain(
      '          BIKES_TABLE: !Ref bikesTable\n          IDEMPOTENCY_TABLE_PARAMETER: !Ref registrationsParameter\n          NODE_OPTIONS: ""\n      Events:\n',
    );
    // The Globals' NODE_OPTIONS, its quotes and its comment, untouched.
    expect(edited).toContain('        NODE_OPTIONS: "--enable-source-maps" # stack traces point into the TypeScript sources\n');
  });

  it("commonjs in this project's pipeline: BuildProperties.Format deleted, nothing else", () => {
    const { edited } = fixed(powertools, "registerBikeFunction", withoutFormat);
    expect(changedLines(powertools, edited)).toEqual(["-        Format: esm"]);
    expect(edited).toBe(powertools.replace("        KeepNames: true\n        Format: esm\n", "        KeepNames: true\n"));
  });

  it("runtime-sdk: the External list replaced, its kept entry and its single quotes as they were", () => {
    // As its owner wrote listBikesFunction's External: in single quotes.
    const singleQuoted = powertools.replace(
      `          - "@aws-sdk/*"\n          - "@aws-lambda-powertools/*"\n`,
      `          - '@aws-sdk/*'\n          - '@aws-lambda-powertools/*'\n`,
    );
    expect(singleQuoted).not.toBe(powertools);
    const { edited } = fixed(singleQuoted, "listBikesFunction", withoutSdk);
    expect(changedLines(singleQuoted, edited)).toEqual([
      "-          - '@aws-sdk/*'",
      ...UNUSED_CREDENTIAL_PROVIDERS.map((provider) => `+          - '${provider}'`),
    ]);
    expect(edited).toContain("        External:\n          - '@aws-lambda-powertools/*'\n          - '@aws-sdk/credential-provider-http'\n");
  });

  it("several rewrites of a function, and of two functions, in one edit", () => {
    const changes = [changeOf(powertools, "registerBikeFunction", withoutSourceMaps, keepAlive), changeOf(powertools, "getBikeFunction", toEsm)];
    const edited = editTemplate(powertools, changes);
    expect(changedLines(powertools, edited)).toEqual([
      '+          NODE_OPTIONS: ""',
      "-        Sourcemap: true",
      "+        Sourcemap: false",
      "+        Define:",
      "+          KEEP_ALIVE: true",
      "-        Format: cjs",
      "+        Format: esm",
      "+        OutExtension:",
      "+          - .js=.mjs",
    ]);
    const resources = reread(edited).Resources;
    for (const { logicalId, after } of changes) expect(resources[logicalId]).toEqual(after);
  });

  it("!Ref, !GetAtt and !Sub survive, as written, in the function edited and around it", () => {
    const hello = readFileSync(templateOf("station-board"), "utf8");
    const { edited } = fixed(hello, "StationBoardFunction", withoutSourceMaps, onNode22);
    const tagged = (text: string) => text.split("\n").filter((line) => /!(Ref|GetAtt|Sub)\b/.test(line));
    expect(tagged(edited)).toEqual(tagged(hello));
    expect(tagged(hello)).toEqual([
      `    Value: !Sub "https://\${ServerlessRestApi}.execute-api.\${AWS::Region}.\${AWS::URLSuffix}/Prod/stations/"`,
      "    Value: !GetAtt StationBoardFunction.Arn",
      "    Value: !GetAtt StationBoardFunctionRole.Arn",
    ]);
    expect(tagged(powertools).length).toBeGreaterThan(10);
    expect(tagged(fixed(powertools, "registerBikeFunction", withBanner, withoutSourceMaps).edited)).toEqual(tagged(powertools));
  });

  it("a change to the same resource leaves the text as it was", () => {
    const hello = readFileSync(templateOf("station-board"), "utf8");
    const { before } = changeOf(hello, "StationBoardFunction");
    expect(editTemplate(hello, [{ logicalId: "StationBoardFunction", before, after: structuredClone(before) }])).toBe(hello);
  });
});

describe("editTemplate: new maps and lists in the document's own block style", () => {
  it("a function without Metadata gets Metadata.BuildProperties, indented as its Properties, before the blank line that ends it", () => {
    const hello = readFileSync(templateOf("station-board"), "utf8");
    const { edited } = fixed(hello, "StationBoardFunction", toEsm);
    expect(changedLines(hello, edited)).toEqual([
      "+    Metadata:",
      "+      BuildProperties:",
      "+        Format: esm",
      "+        OutExtension:",
      "+          - .js=.mjs",
    ]);
    expect(edited).toContain(
      "            Method: get\n    Metadata:\n      BuildProperties:\n        Format: esm\n        OutExtension:\n          - .js=.mjs\n\nOutputs:\n",
    );
  });

  it("a function without Properties.Runtime gets it as the last of its Properties", () => {
    const withoutRuntime = readFileSync(templateOf("station-board"), "utf8").replace(/^ {6}Runtime: .*\n/m, "");
    expect(withoutRuntime).not.toContain("Runtime:");
    const { edited } = fixed(withoutRuntime, "StationBoardFunction", onNode22);
    expect(edited).toContain("            Method: get\n      Runtime: nodejs22.x\n\nOutputs:\n");
  });

  it("a new list is laid out like the lists beside it (`- fare.ts` at its key's indentation, as sam init writes it)", () => {
    const asWritten = readFileSync(templateOf("fare-quote"), "utf8").replace(
      "        EntryPoints:\n          - fare.ts\n",
      "        EntryPoints: \n        - fare.ts\n",
    );
    const { edited } = fixed(asWritten, "FareQuoteFunction", withoutSdk);
    expect(changedLines(asWritten, edited)).toEqual(["+        External:", ...UNUSED_CREDENTIAL_PROVIDERS.map((provider) => `+        - "${provider}"`)]);
    // The trailing space after `EntryPoints:` is the template's own, kept.
    expect(edited).toContain("        EntryPoints: \n        - fare.ts\n        External:\n");
  });

  it("flow maps and lists stay flow, with their own padding: `{ a: 1 }` and `[a]`", () => {
    const text = [
      "Resources:",
      "  Fn:",
      "    Type: AWS::Serverless::Function",
      "    Metadata: { BuildMethod: esbuild, BuildProperties: { Format: cjs, External: ['@aws-sdk/*', sharp] } }",
      "    Properties: { Handler: index.handler }",
      "",
    ].join("\n");
    const { edited } = fixed(text, "Fn", toEsm, withoutSdk, onNode22);
    expect(changedLines(text, edited)).toEqual([
      "-    Metadata: { BuildMethod: esbuild, BuildProperties: { Format: cjs, External: ['@aws-sdk/*', sharp] } }",
      "-    Properties: { Handler: index.handler }",
      `+    Metadata: { BuildMethod: esbuild, BuildProperties: { Format: esm, External: [sharp, ${UNUSED_CREDENTIAL_PROVIDERS.map((provider) => `'${provider}'`).join(", ")}], OutExtension: [.js=.mjs] } }`,
      "+    Properties: { Handler: index.handler, Runtime: nodejs22.x }",
    ]);
  });

  it("a list that was a string becomes a block list; the comment on its line moves to its key", () => {
    const text = "Resources:\n  Fn:\n    Type: AWS::Serverless::Function\n    Metadata:\n      BuildProperties:\n        External: pg-native, sharp # native\n";
    const { edited } = fixed(text, "Fn", withoutSdk);
    expect(edited).toBe(
      `Resources:\n  Fn:\n    Type: AWS::Serverless::Function\n    Metadata:\n      BuildProperties:\n        External: # native\n          - pg-native\n          - sharp\n${UNUSED_CREDENTIAL_PROVIDERS.map((provider) => `          - "${provider}"\n`).join("")}`,
    );
  });

  it("the last key of a map deleted: the map stays, empty, with the comment on its key's line", () => {
    const text =
      "Resources:\n  Fn:\n    Type: AWS::Serverless::Function\n    Metadata:\n      BuildProperties: # esbuild's\n        Format: cjs\n    Properties:\n      Handler: index.handler\n";
    const { edited } = fixed(text, "Fn", withoutFormat);
    expect(changedLines(text, edited)).toEqual(["-      BuildProperties: # esbuild's", "-        Format: cjs", "+      BuildProperties: {} # esbuild's"]);
  });

  it("Windows line endings and a last line without one: new lines end as the others do", () => {
    const text = "Resources:\r\n  Fn:\r\n    Type: AWS::Serverless::Function\r\n    Properties:\r\n      Handler: index.handler";
    const { edited } = fixed(text, "Fn", onNode22);
    expect(edited).toBe(
      "Resources:\r\n  Fn:\r\n    Type: AWS::Serverless::Function\r\n    Properties:\r\n      Handler: index.handler\r\n      Runtime: nodejs22.x",
    );
  });
});

describe("editTemplate on every function of every app's template", () => {
  const apps = readdirSync(APPS).filter((app) => existsSync(templateOf(app)));
  const rewrites: [string, Rewrite][] = [
    ["commonjs", withBanner],
    ["runtime-sdk", withoutSdk],
    ["source-maps", withoutSourceMaps],
    ["keep-alive", keepAlive],
    ["pipeline commonjs", withoutFormat],
    ["runtime", onNode22],
  ];
  const cases = apps.flatMap((app) => {
    const text = readFileSync(templateOf(app), "utf8");
    return Object.entries(reread(text).Resources)
      .filter(([, resource]) => resource.Type === "AWS::Serverless::Function")
      .flatMap(([logicalId]) => rewrites.map(([name, rewrite]) => [`${app} ${logicalId} ${name}`, text, logicalId, rewrite] as const));
  });

  it("covers the corpus", () => expect(cases.length).toBeGreaterThan(100));

  it.each(cases)("%s: reads back as the rewrite, every line it removes is the function's own", (_, text, logicalId, rewrite) => {
    const { edited } = fixed(text, logicalId, rewrite);
    // The function's lines: from its key to the next resource's (or the next section's).
    const lines = text.split("\n");
    const start = lines.findIndex((line) => new RegExp(`^ {2}${logicalId}:`).test(line));
    const next = lines.findIndex((line, at) => at > start && /^ {0,2}[^\s#]/.test(line));
    const ownLines = new Set(lines.slice(start, next < 0 ? lines.length : next));
    expect(start).toBeGreaterThan(0);
    for (const line of changedLines(text, edited).filter((changed) => changed.startsWith("-"))) expect(ownLines).toContain(line.slice(1));
  });
});

describe("editTemplate refuses what it cannot do, and says what to do", () => {
  const hello = readFileSync(templateOf("station-board"), "utf8");

  it("a logical id the template's Resources do not have", () => {
    const { before, after } = changeOf(hello, "StationBoardFunction", toEsm);
    expect(() => editTemplate(hello, [{ logicalId: "GoodbyeFunction", before, after }])).toThrow(
      "the template's Resources has no GoodbyeFunction (it has StationBoardFunction): run the doctor again on the template it examined",
    );
  });

  it("a template that is not valid YAML: the first error, with its line", () => {
    const { before, after } = changeOf(hello, "StationBoardFunction", toEsm);
    const broken = hello.replace("      Handler: app.listStations\n", "      Handler: app.listStations\n     Runtime: nodejs22.x\n");
    expect(() => editTemplate(broken, [{ logicalId: "StationBoardFunction", before, after }])).toThrow(
      "the template is not valid YAML at line 18, column 1: All mapping items must start at the same column. Fix it (sam validate --lint shows it too), then run the doctor again",
    );
  });

  it("a template repeating a key elsewhere (which SAM builds, the last one counting): edited, the repeat kept as written", () => {
    const repeated = hello.replace("Globals:\n  Function:\n    Timeout: 3\n", "Globals:\n  Function:\n    Timeout: 3\n    Timeout: 5\n");
    const edited = editTemplate(repeated, [changeOf(repeated, "StationBoardFunction", toEsm)]);
    expect(edited).toContain("    Timeout: 3\n    Timeout: 5\n");
    expect(reread(edited).Resources.StationBoardFunction!.Metadata).toEqual({ BuildProperties: { Format: "esm", OutExtension: [".js=.mjs"] } });
  });

  it("a resource that is no longer the one the doctor read", () => {
    const { before, after } = changeOf(hello, "StationBoardFunction", toEsm);
    expect(() =>
      editTemplate(hello.replace("Handler: app.listStations", "Handler: app.other"), [{ logicalId: "StationBoardFunction", before, after }]),
    ).toThrow("StationBoardFunction in the template is not the resource the doctor read: the file changed since, run the doctor again");
  });

  it("a property in a YAML anchor that another function aliases: editing it would change both", () => {
    const text = [
      "Resources:",
      "  One:",
      "    Type: AWS::Serverless::Function",
      "    Metadata:",
      "      BuildProperties: &shared",
      "        Format: cjs",
      "  Two:",
      "    Type: AWS::Serverless::Function",
      "    Metadata:",
      "      BuildProperties: *shared",
      "",
    ].join("\n");
    expect(() => editTemplate(text, [changeOf(text, "One", toEsm)])).toThrow(
      'cannot edit One.Metadata.BuildProperties.Format in place: it is in the YAML anchor &shared, which *shared repeats elsewhere: that would change too; make the change by hand: set it to "esm"',
    );
    // The alias itself is replaced by the map it now is.
    const { edited } = fixed(text, "Two", toEsm);
    expect(edited.endsWith("      BuildProperties:\n        Format: esm\n        OutExtension:\n          - .js=.mjs\n")).toBe(true);
  });
});

describe("editTemplate on a JSON template: edited as JSON, written at its own indentation", () => {
  const json = `${JSON.stringify(
    {
      AWSTemplateFormatVersion: "2010-09-09",
      Transform: "AWS::Serverless-2016-10-31",
      Resources: {
        Fn: { Type: "AWS::Serverless::Function", Properties: { Handler: "index.handler", Role: { "Fn::GetAtt": ["Role", "Arn"] } } },
        Role: { Type: "AWS::IAM::Role" },
      },
    },
    null,
    4,
  )}\n`;

  it("only the changed properties' lines change, and it stays JSON", () => {
    const { edited, after } = fixed(json, "Fn", toEsm, onNode22);
    expect(JSON.parse(edited).Resources.Fn).toEqual(after);
    expect(changedLines(json, edited)).toEqual([
      "+                },",
      '+                "Runtime": "nodejs22.x"',
      "+            },",
      '+            "Metadata": {',
      '+                "BuildProperties": {',
      '+                    "Format": "esm",',
      '+                    "OutExtension": [',
      '+                        ".js=.mjs"',
      "+                    ]",
    ]);
    // The !GetAtt of a JSON template is its long form, kept.
    expect(edited).toContain('"Fn::GetAtt": [\n                        "Role",\n                        "Arn"\n                    ]\n                },\n');
  });

  it("a JSON template laid out otherwise is refused rather than re-laid out", () => {
    const compact = JSON.stringify(JSON.parse(json));
    expect(() => editTemplate(compact.replace('"Handler":', '"Handler" :'), [changeOf(json, "Fn", onNode22)])).toThrow(
      "the template is JSON laid out otherwise than JSON.stringify with its indentation writes it",
    );
    expect(() => editTemplate(json.replace('"Handler": "index.handler",', '"Handler": "index.handler",,'), [changeOf(json, "Fn", onNode22)])).toThrow(
      /^the template is not valid JSON: .*\. Fix it, then run the doctor again$/,
    );
  });
});
