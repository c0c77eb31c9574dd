// The SDK trees a build bundles from: found where the app installs its SDK, and the patched copy
// made from it, with a patch that does not fit the app's version left out and named.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { treeNotes } from "../../builder/build.mts";
import { patchedFiles, patchedTree, publishedTree, sdkClosure, sdkPatches, WARPSTART_TREE } from "../../builder/sdk-tree.mts";
import { DEMO_ROOT } from "../support/demo.mts";

const root = mkdtempSync(join(tmpdir(), "warpstart-sdk-tree-"));
// The patched copies go to the lab's home: this test's own.
process.env.XDG_CACHE_HOME = join(root, "cache");
afterAll(() => rmSync(root, { recursive: true, force: true }));

const install = (dir: string, pkg: string, version: string, dependencies: Record<string, string> = {}) => {
  mkdirSync(join(dir, "node_modules", pkg), { recursive: true });
  writeFileSync(join(dir, "node_modules", pkg, "package.json"), JSON.stringify({ name: pkg, version, dependencies }));
};

describe("publishedTree", () => {
  it("is the nearest folder up from the source whose node_modules has @aws-sdk/*, a linked node_modules followed", () => {
    const app = join(root, "app");
    install(app, "@aws-sdk/client-sts", "3.1100.0");
    mkdirSync(join(app, "src/functions/a"), { recursive: true });
    expect(publishedTree(join(app, "src/functions/a/index.mts"))).toBe(app);

    const linked = join(root, "linked");
    mkdirSync(linked);
    symlinkSync(join(app, "node_modules"), join(linked, "node_modules"));
    expect(publishedTree(join(linked, "index.mjs"))).toBe(app);
  });

  it("is warpstart's own tree where the app installs no SDK", () => {
    const bare = join(root, "bare");
    install(bare, "zod", "4.0.0");
    expect(publishedTree(join(bare, "index.mjs"))).toBe(WARPSTART_TREE);
  });
});

it("sdkClosure: the SDK's packages at the top of node_modules and what they depend on, not the app's other packages", () => {
  const app = join(root, "closure");
  install(app, "@aws-sdk/client-sts", "3.1100.0", { "@smithy/core": "^3.0.0", tslib: "^2.0.0" });
  install(app, "@smithy/core", "3.40.0", { "@smithy/types": "^4.0.0" });
  install(app, "@smithy/types", "4.0.0");
  install(app, "tslib", "2.8.0");
  install(app, "zod", "4.0.0");
  // A version npm nested under the package that needs it: its own dependencies come along.
  install(join(app, "node_modules/@aws-sdk/client-sts"), "@aws-sdk/core", "3.900.0", { "fast-xml-parser": "^5.0.0" });
  install(app, "fast-xml-parser", "5.0.0");
  expect(sdkClosure(join(app, "node_modules"))).toEqual(["@aws-sdk/client-sts", "@smithy/core", "@smithy/types", "fast-xml-parser", "tslib"]);
});

it("every patch applies to the SDK the demo installs, in order", () => {
  const current = new Map<string, Map<string, string>>();
  for (const patch of sdkPatches()) {
    const dir = join(DEMO_ROOT, "node_modules", patch.pkg);
    const files = patchedFiles(dir, patch, current.get(dir));
    expect([patch.file, files === null ? "does not apply" : "applies"]).toEqual([patch.file, "applies"]);
    current.set(dir, files!);
  }
});

describe("patchedTree", () => {
  // An app whose @smithy/core differs from the one the patches were made on where lazy-zlib patches it.
  const app = join(root, "drifted");
  const core = join(app, "node_modules/@smithy/core");
  cpSync(join(DEMO_ROOT, "node_modules/@smithy/core"), core, { recursive: true });
  const crc32 = join(core, "dist-es/submodules/checksum/crc32/Crc32Node.js");
  writeFileSync(crc32, readFileSync(crc32, "utf8").replace("zlib.crc32 ===", "zlib.crc32c ==="));
  const version = (JSON.parse(readFileSync(join(core, "package.json"), "utf8")) as { version: string }).version;
  const lazyZlib = sdkPatches().find((patch) => patch.name === "lazy-zlib")!;

  it("copies the app's SDK with the patches that apply, and leaves out, named, the one that does not", () => {
    const tree = patchedTree(app);
    expect(tree.skipped).toEqual([{ patch: "lazy-zlib", pkg: "@smithy/core", version, madeFor: lazyZlib.madeFor }]);
    expect(readFileSync(join(tree.dir, "node_modules/@smithy/core/dist-es/submodules/checksum/crc32/Crc32Node.js"), "utf8")).toContain("zlib.crc32c ===");
    expect(readFileSync(join(tree.dir, "node_modules/@smithy/core/dist-es/submodules/serde/uuid/v4.js"), "utf8")).toContain("warpstart");
    // The app's own files are as they were.
    expect(readFileSync(join(core, "dist-es/submodules/serde/uuid/v4.js"), "utf8")).not.toContain("warpstart");
    // Made once: the next build of the same versions uses it.
    expect(patchedTree(app)).toEqual(tree);
  });

  it("leaves out the patches a measurement names, in a tree of its own", () => {
    const tree = patchedTree(app, ["uuid-without-webcrypto"]);
    expect(tree.dir).not.toBe(patchedTree(app).dir);
    expect(readFileSync(join(tree.dir, "node_modules/@smithy/core/dist-es/submodules/serde/uuid/v4.js"), "utf8")).not.toContain("warpstart");
  });

  it("the build says, a line each, what the tree could not give it", () => {
    const imports = new Map<string, "*">([["@smithy/core", "*"]]);
    expect(treeNotes(imports, patchedTree(app), ["@smithy/core/dist-es/no-such-file.js"])).toEqual([
      `built without the patches that do not fit the SDK the app installs: lazy-zlib (made on @smithy/core ${lazyZlib.madeFor}, the app has ${version})`,
      "built without replacing @smithy/core/dist-es/no-such-file.js: the SDK version the app installs has no such file",
    ]);
    expect(treeNotes(new Map([["@aws-sdk/client-sts", "*"]]), { dir: WARPSTART_TREE, from: WARPSTART_TREE, skipped: [] }, [])[0]).toMatch(
      /^the app installs no @aws-sdk\/\* package: bundles warpstart's own \(@aws-sdk\/client-sts \d+\.\d+\.\d+\); npm install the clients it uses to choose their versions$/,
    );
    expect(treeNotes(new Map(), patchedTree(app), [])).toEqual([]);
  });
});
