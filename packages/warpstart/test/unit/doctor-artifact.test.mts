// What the doctor says when it cannot read a function's build (the report lists the function as
// skipped, with this): before it bundles anything; and how it reads a .js handler's module format
// on each runtime. Real builds are read in test/integration/doctor.test.mts.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { TemplateFunction } from "../../core/template.mts";
import { ArtifactError, readBuiltFunction } from "../../doctor/artifact.mts";
import { templateFunction } from "../support/built-function.mts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "warpstart-doctor-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const builtFunction = (codeDir: string, handler = "src/index.handler") =>
  ({ logicalId: "Fn", codeDir, handler, runtime: "nodejs22.x", architecture: "x86_64", environment: {}, buildProperties: {} }) as unknown as TemplateFunction;

it("an artifact that does not exist", async () => {
  const missing = join(dir, "Fn");
  await expect(readBuiltFunction(builtFunction(missing))).rejects.toThrow(
    new ArtifactError(`its artifact ${relative(process.cwd(), missing)} does not exist: was it built?`),
  );
});

it("an artifact without the handler's module", async () => {
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src/other.mjs"), "export const handler = () => 1;");
  await expect(readBuiltFunction(builtFunction(dir))).rejects.toThrow(new ArtifactError("its artifact holds no handler module src/index.js, .mjs or .cjs"));
});

it("a Handler that names no module", async () => {
  await expect(readBuiltFunction(builtFunction(dir, "handler"))).rejects.toThrow(ArtifactError);
});

describe("a .js handler's module format is what its runtime makes of it", () => {
  const ESM = "import { hostname } from 'node:os';\nexport const handler = async () => hostname();\n";
  const CJS = "exports.handler = async () => 1;\n";
  const formatOf = async (code: string, fn: Partial<TemplateFunction>, packageJson?: object) => {
    writeFileSync(join(dir, "index.js"), code);
    rmSync(join(dir, "package.json"), { force: true });
    if (packageJson) writeFileSync(join(dir, "package.json"), JSON.stringify(packageJson));
    const built = await readBuiltFunction({ ...templateFunction({ codeDir: dir, handler: "index.handler" }), ...fn });
    return built.format;
  };

  it("nodejs24.x detects module syntax in a .js of a package without a type: an ES module", async () => {
    expect(await formatOf(ESM, { runtime: "nodejs24.x" })).toBe("esm");
    expect(await formatOf(ESM, { runtime: "nodejs24.x" }, { name: "app" })).toBe("esm");
  });

  it("nodejs22.x's bootstrap turns detection off: CommonJS, unless NODE_OPTIONS turns it back on", async () => {
    expect(await formatOf(ESM, { runtime: "nodejs22.x" })).toBe("cjs");
    expect(await formatOf(ESM, { runtime: "nodejs22.x", environment: { NODE_OPTIONS: "--experimental-detect-module" } })).toBe("esm");
  });

  it("nodejs20.x's Node detects it too (Lambda turns detection off on Node 22 only); older runtimes require() a .js: CommonJS", async () => {
    expect(await formatOf(ESM, { runtime: "nodejs20.x" })).toBe("esm");
    expect(await formatOf(ESM, { runtime: "nodejs18.x" })).toBe("cjs");
    expect(await formatOf(ESM, { runtime: "nodejs16.x" })).toBe("cjs");
  });

  it("a package's type decides before detection does, and a .js without module syntax is CommonJS everywhere", async () => {
    expect(await formatOf(ESM, { runtime: "nodejs24.x" }, { type: "commonjs" })).toBe("cjs");
    expect(await formatOf(CJS, { runtime: "nodejs22.x" }, { type: "module" })).toBe("esm");
    expect(await formatOf(CJS, { runtime: "nodejs24.x" })).toBe("cjs");
  });
});
