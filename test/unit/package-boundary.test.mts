// The demo is the package's user, as any app is: its code reaches the package only by the package's
// name and the `exports` its manifest declares, never by a path into packages/.
import { readdirSync, readFileSync } from "node:fs";
import { extname, join, relative } from "node:path";
import ts from "typescript";

const ROOT = join(import.meta.dirname, "../..");
const CODE = new Set([".mts", ".mjs", ".cts", ".cjs", ".ts", ".js"]);
const NOT_THE_DEMO = new Set(["node_modules", "packages", ".aws-sam", ".lab", "results", "docs"]);

function demoFiles(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name.startsWith(".") || NOT_THE_DEMO.has(entry.name) ? [] : demoFiles(path);
    return CODE.has(extname(entry.name)) ? [path] : [];
  });
}

const manifest = JSON.parse(readFileSync(join(ROOT, "packages/warpstart/package.json"), "utf8")) as { name: string; exports: Record<string, string> };

/** Why a specifier of a demo file goes around the package's front door, or null. */
function wayIn(specifier: string): string | null {
  if (specifier.includes("packages/")) return "a path into packages/";
  if (specifier !== manifest.name && !specifier.startsWith(`${manifest.name}/`)) return null;
  const subpath = `.${specifier.slice(manifest.name.length)}`;
  return subpath in manifest.exports ? null : `${subpath} is not in the package's exports`;
}

it("reads the demo's imports, and knows a way around the front door", () => {
  expect(demoFiles().map((file) => relative(ROOT, file))).toContain("src/functions/identity/identity.mts");
  expect(["warpstart/contract", "warpstart/core/paths.mts", "../../packages/warpstart/src/contract.mts", "yaml"].map(wayIn)).toEqual([
    null,
    "./core/paths.mts is not in the package's exports",
    "a path into packages/",
    null,
  ]);
});

it("the demo imports the package only by its name and exports", () => {
  const around = demoFiles().flatMap((file) =>
    ts
      .preProcessFile(readFileSync(file, "utf8"), true, true)
      .importedFiles.map(({ fileName }) => [fileName, wayIn(fileName)] as const)
      .filter(([, why]) => why !== null)
      .map(([fileName, why]) => `${relative(ROOT, file)}: ${fileName}: ${why}`),
  );
  expect(around).toEqual([]);
});
