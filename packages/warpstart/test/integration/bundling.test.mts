// How the pipeline bundles libraries as users' projects have them, on an app made here with its
// own node_modules: CommonJS dependencies in an ES-module bundle (require of builtins and JSON,
// __dirname/__filename, an optional require), TypeScript `paths` and package.json `imports`; and
// what a user sees when a library cannot be bundled or needs an SDK version no tree has.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { buildFunction, functionBuild } from "../../builder/build.mts";
import { NODE22 } from "../../core/paths.mts";
import { readTemplate } from "../../core/template.mts";
import { ownLocalAws } from "../../emulation/local-aws/build-services.mts";

const FILES: Record<string, string> = {
  "package.json": JSON.stringify({ name: "an-app", type: "module", imports: { "#shared/*": "./src/shared/*.mts" } }),
  "tsconfig.json": JSON.stringify({ compilerOptions: { baseUrl: ".", paths: { "@lib/*": ["src/lib/*"] } } }),
  "template.yaml": `Transform: AWS::Serverless-2016-10-31
Globals:
  Function: { Runtime: nodejs22.x, CodeUri: ., Architectures: [arm64] }
Resources:
${["Legacy", "Aliases", "Native", "NeedsNewerCore", "Patched", "PatchedBefore", "PatchStale"]
  .map(
    (name) =>
      `  ${name}:\n    Type: AWS::Serverless::Function\n    Metadata: { BuildMethod: makefile }\n    Properties: { Handler: src/${name.toLowerCase()}.handler }`,
  )
  .join("\n")}
  CommonJsHandler:
    Type: AWS::Serverless::Function
    Metadata: { BuildMethod: makefile, BuildProperties: { Format: esm } }
    Properties: { Handler: src/commonjs-handler.handler }
  Deps: # SAM's Node.js layer builder installs its package.json into nodejs/node_modules
    Type: AWS::Serverless::LayerVersion
    Metadata: { BuildMethod: nodejs22.x }
    Properties: { ContentUri: deps/ }
  Layered:
    Type: AWS::Serverless::Function
    Metadata: { BuildMethod: makefile }
    Properties: { Handler: src/layered.handler, Layers: [!Ref Deps] }
  LayeredV2: # the SDK v2, which its layer does not ship
    Type: AWS::Serverless::Function
    Metadata: { BuildMethod: makefile }
    Properties: { Handler: src/layered-v2.handler, Layers: [!Ref Deps] }
  LayeredWarp:
    Type: AWS::Serverless::Function
    Metadata: { BuildMethod: makefile }
    Properties: { Handler: src/layered-warp.handler, Layers: [!Ref Deps] }
`,
  // A CommonJS library as npm has them: builtins, JSON, its own path, an optional dependency.
  "node_modules/legacy-lib/package.json": JSON.stringify({ name: "legacy-lib", version: "1.0.0", main: "index.js" }),
  "node_modules/legacy-lib/defaults.json": JSON.stringify({ greeting: "hello" }),
  "node_modules/legacy-lib/index.js": `const util = require("util");
const path = require("path");
let pretty = null;
try { pretty = require("legacy-lib-pretty"); } catch {}
module.exports = { greet: (name) => util.format("%s, %s", require("./defaults.json").greeting, name), dir: path.basename(__dirname), file: path.basename(__filename), pretty };`,
  "src/legacy.mts": `import lib from "legacy-lib";
export const handler = async () => ({ greeting: lib.greet("Lambda"), dir: lib.dir, file: lib.file, pretty: lib.pretty });`,
  // A handler written as CommonJS (as SAM's npm-built apps have them), built as an ES module.
  "src/commonjs-handler.cjs": `const util = require("util");
exports.handler = async () => util.format("%s from %s", "hello", require("path").basename(__filename));`,
  "src/lib/words.mts": `export const word = "from paths";`,
  "src/shared/words.mts": `export const word = "from imports";`,
  "src/aliases.mts": `import { word as viaPaths } from "@lib/words.mts";
import { word as viaImports } from "#shared/words";
export const handler = async () => [viaPaths, viaImports];`,
  // Packages from the app's own layer: one its package.json names, one that package depends on.
  "deps/package.json": JSON.stringify({ name: "deps", version: "1.0.0", dependencies: { "fx-format": "1.0.0" } }),
  "src/layered.cjs": `const format = require("fx-format");
const core = require("fx-core");
exports.handler = async () => format(core);`,
  // Its own package and an SDK client beside its layer's package: Warp's chunk holds the first two, the layer serves the other.
  "src/layered-v2.cjs": `const AWS = require("aws-sdk");\nexports.handler = async () => typeof AWS.S3;`,
  "src/layered-warp.cjs": `const lib = require("legacy-lib");
const { STSClient } = require("@aws-sdk/client-sts");
const format = require("fx-format");
exports.handler = async () => format(lib.greet(typeof STSClient));`,
  // A native addon: nothing a bundle can hold.
  "node_modules/native-lib/package.json": JSON.stringify({ name: "native-lib", version: "2.0.0", main: "index.js" }),
  "node_modules/native-lib/index.js": `module.exports = require("./build/binding.node");`,
  "node_modules/native-lib/build/binding.node": "not really a shared object",
  "src/native.mts": `import native from "native-lib";\nexport const handler = async () => native;`,
  // A library that needs a release of the SDK that no tree has.
  "node_modules/needs-newer-core/package.json": JSON.stringify({
    name: "needs-newer-core",
    version: "3.0.0",
    type: "module",
    main: "index.js",
    dependencies: { "@smithy/core": "^99.0.0" },
  }),
  "node_modules/needs-newer-core/index.js": `export { HttpRequest } from "@smithy/core/protocols";`,
  "src/needsnewercore.mts": `import { HttpRequest } from "needs-newer-core";\nexport const handler = async () => typeof HttpRequest;`,
  // The app's own patches, as patch-package writes them: one to a package as installed, one that
  // patch-package's postinstall applied already, one made for another version than the installed.
  "node_modules/greeter/package.json": JSON.stringify({ name: "greeter", version: "1.0.0", main: "index.js" }),
  "node_modules/greeter/index.js": "module.exports = (name) => 'hello, ' + name;\n",
  "patches/greeter+1.0.0.patch": patchOf(
    "greeter",
    "module.exports = (name) => 'hello, ' + name;",
    "module.exports = (name) => 'hello, ' + name + ', as the app patch says';",
  ),
  "src/patched.mts": `import greet from "greeter";\nexport const handler = async () => greet("Lambda");`,
  "node_modules/greeted/package.json": JSON.stringify({ name: "greeted", version: "1.0.0", main: "index.js" }),
  "node_modules/greeted/index.js": "module.exports = 'patched by postinstall';\n",
  "patches/greeted+1.0.0.patch": patchOf("greeted", "module.exports = 'as installed';", "module.exports = 'patched by postinstall';"),
  "src/patchedbefore.mts": `import greeting from "greeted";\nexport const handler = async () => greeting;`,
  "node_modules/stale/package.json": JSON.stringify({ name: "stale", version: "2.0.0", main: "index.js" }),
  "node_modules/stale/index.js": "module.exports = 'version 2';\n",
  "patches/stale+1.0.0.patch": patchOf("stale", "module.exports = 'version 1';", "module.exports = 'version 1, patched';"),
  "src/patchstale.mts": `import stale from "stale";\nexport const handler = async () => stale;`,
};

/** A patch-package patch of a package's index.js, one line changed. */
function patchOf(pkg: string, before: string, after: string): string {
  const file = `node_modules/${pkg}/index.js`;
  return `diff --git a/${file} b/${file}\nindex 1111111..2222222 100644\n--- a/${file}\n+++ b/${file}\n@@ -1 +1 @@\n-${before}\n+${after}\n`;
}

let app: string;
beforeAll(() => {
  app = mkdtempSync(join(tmpdir(), "warpstart-bundling-"));
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(app, file)), { recursive: true });
    writeFileSync(join(app, file), text);
  }
});
afterAll(() => rmSync(app, { recursive: true, force: true }));

const build = (logicalId: string, profile: string) =>
  buildFunction(functionBuild(readTemplate(join(app, "template.yaml")), logicalId, profile), join(app, "out", `${logicalId}-${profile}`), {
    initServices: ownLocalAws,
  });

/** Imports a built handler module in a fresh Node 22 and prints what its handler answers. */
const answer = (outfile: string) =>
  new Promise<unknown>((resolve, reject) =>
    execFile(
      NODE22,
      [
        "--input-type=module",
        "-e",
        `const { handler } = await import(${JSON.stringify(pathToFileURL(outfile).href)}); console.log(JSON.stringify(await handler({})));`,
      ],
      (error, stdout, stderr) => (error ? reject(new Error(stderr)) : resolve(JSON.parse(stdout))),
    ),
  );

it.each(["Raw", "Bundled", "Optimized"])("bundles a CommonJS library into an ES module that runs as it would unbundled (%s)", async (profile) => {
  const { outfile } = await build("Legacy", profile);
  // In a bundle the library's __dirname and __filename are the bundle's own, as SAM users' banners make them.
  expect(await answer(outfile)).toEqual({ greeting: "hello, Lambda", dir: "src", file: "legacy.mjs", pretty: null });
});

it.each(["Bundled", "Warp"])("bundles a package as the app's own patch-package patch changes it, patch-package run or not (%s)", async (profile) => {
  expect(await answer((await build("Patched", profile)).outfile)).toBe("hello, Lambda, as the app patch says");
  expect(await answer((await build("PatchedBefore", profile)).outfile)).toBe("patched by postinstall");
});

it("stops the build where the app's patch does not fit the package installed, naming the patch", async () => {
  await expect(build("PatchStale", "Bundled")).rejects.toThrow(
    "PatchStale: esbuild cannot bundle it: src/patchstale.mts:1: patches/stale+1.0.0.patch does not apply to node_modules/stale/index.js as installed: make it again for the installed version (npx patch-package stale)",
  );
});

it("builds a CommonJS handler as an ES module that exports the handler by its name, as the runtime looks it up", async () => {
  const { outfile } = await build("CommonJsHandler", "Optimized");
  expect(outfile).toMatch(/commonjs-handler\.mjs$/);
  expect(await answer(outfile)).toBe("hello from commonjs-handler.mjs");
});

it("resolves TypeScript paths and package.json imports as the user's project does", async () => {
  expect(await answer((await build("Aliases", "Optimized")).outfile)).toEqual(["from paths", "from imports"]);
});

it("leaves what the function's own layer provides to it at run time, and what that depends on, saying so", async () => {
  const { outfile, notes } = await build("Layered", "Optimized");
  const bundle = readFileSync(outfile, "utf8");
  expect(bundle).toContain('require("fx-format")');
  expect(bundle).toContain('require("fx-core")');
  expect(notes).toEqual([
    "fx-core: not among its own packages, so left to its layers at run time, as Lambda's module path finds them there (outside the bundle)",
  ]);
});

it("says that the SDK v2 it leaves to its layers is in no runtime it may run on", async () => {
  expect((await build("LayeredV2", "Optimized")).notes).toEqual([
    "aws-sdk: not among its own packages, so left to its layers at run time, as Lambda's module path finds them there (outside the bundle)",
    "aws-sdk is the SDK v2, which no runtime from nodejs18.x carries: unless a layer ships it, INIT fails with Cannot find module 'aws-sdk', on Lambda as in the lab (npm install aws-sdk, or move to the v3 clients, @aws-sdk/client-*)",
  ]);
});

it("Warp: makes the code cache from an INIT that finds them in the layer as sam build built it, beside the function", async () => {
  // Where sam build leaves a built layer: beside the functions' artifacts.
  const installed = join(app, "out", "Deps", "nodejs", "node_modules", "fx-format");
  mkdirSync(installed, { recursive: true });
  writeFileSync(join(installed, "package.json"), JSON.stringify({ name: "fx-format", version: "1.0.0", main: "index.js" }));
  writeFileSync(join(installed, "index.js"), 'module.exports = (text) => "[" + text + "]";');
  const { outfile, notes, codeCache } = await build("LayeredWarp", "Warp");
  expect(readFileSync(outfile, "utf8")).toContain('require("fx-format")');
  expect(codeCache).toMatchObject({ stoppedBy: undefined });
  expect(notes).toContain(
    "legacy-lib-pretty: not among its own packages, so left to its layers at run time, as Lambda's module path finds them there (outside the bundle and its code cache)",
  );
}, 120_000);

it("says in one line which file esbuild cannot bundle, and why", async () => {
  await expect(build("Native", "Optimized")).rejects.toThrow(
    /^Native: esbuild cannot bundle it: .*node_modules\/native-lib\/index\.js:1: No loader is configured for "\.node" files: .*binding\.node$/,
  );
});

it.each(["Bundled", "Optimized"])(
  "%s: a library that needs an SDK release the tree does not have gets its own copy, where npm would have installed it (here, nowhere)",
  async (profile) => {
    await expect(build("NeedsNewerCore", profile)).rejects.toThrow(
      /^NeedsNewerCore: esbuild cannot bundle it: .*needs-newer-core\/index\.js:1: Could not resolve "@smithy\/core\/protocols"/,
    );
  },
);
