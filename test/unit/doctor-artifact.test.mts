// What the doctor says when it cannot read a function's build (the report lists the function as
// skipped, with this): before it bundles anything. Real builds are read in test/integration/doctor.test.mts.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { TemplateFunction } from "../../core/template.mts";
import { ArtifactError, readBuiltFunction } from "../../doctor/artifact.mts";

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
