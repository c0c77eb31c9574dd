// The package as npm packs it for an app's node_modules: its dependencies are what its code
// imports, pinned, and nothing else (the SDK clients of the lab and the deployed bench come from its
// SDK tree when first needed: core/tools.mts); what it packs is JavaScript, built before packing
// (scripts/pack.mjs; test/slow/package-install.test.mts packs and installs it).
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative } from "node:path";
import { PACKAGE_ROOT } from "../../core/paths.mts";

type Manifest = {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  files: string[];
  bin: Record<string, string>;
  scripts: Record<string, string>;
};
const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as Manifest;

/** The package's own code: what npm packs of it, as source. */
function codeFiles(dir = PACKAGE_ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return ["node_modules", "test", "tools", ".venv", ".lab", "experiments"].includes(entry.name) || entry.name.startsWith(".") ? [] : codeFiles(path);
    return /\.(mts|mjs|cjs)$/.test(entry.name) && !entry.name.endsWith(".d.mts") ? [path] : [];
  });
}

/** The packages a file imports as values (an `import type` is gone from the JavaScript). */
function importedPackages(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [
    ...text.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?\sfrom\s+"([^".][^"]*)"/gms),
    ...text.matchAll(/\brequire\("([^".][^"]*)"\)/g),
  ].map((match) => match[1]!);
  return specifiers
    .filter((specifier) => !specifier.startsWith("node:") && !builtinModules.includes(specifier))
    .map((specifier) =>
      specifier
        .split("/")
        .slice(0, specifier.startsWith("@") ? 2 : 1)
        .join("/"),
    );
}

it("depends on exactly the packages its code imports, each at one version, and on no AWS SDK package", () => {
  const imported = new Map<string, string>();
  for (const file of codeFiles()) for (const name of importedPackages(file)) imported.set(name, relative(PACKAGE_ROOT, file));
  // The runtime interface client is imported by the runtimes' stand-ins, from their own trees.
  imported.delete("aws-lambda-ric");
  expect([...imported.keys()].sort()).toEqual(Object.keys(manifest.dependencies).sort());
  for (const version of Object.values(manifest.dependencies)) expect(version).toMatch(/^\d+\.\d+\.\d+$/);
  expect(Object.keys(manifest.dependencies).filter((name) => name.startsWith("@aws-sdk/"))).toEqual([]);
});

it("packs its program, its Makefile rule, the pins of its tools and the changelog its README links, as JavaScript built before packing", () => {
  expect(manifest.bin).toEqual({ warpstart: "warpstart.mjs" });
  expect(manifest.files).toEqual(
    expect.arrayContaining(["warpstart.mjs", "warpstart.mk", "tools/*/package*.json", "requirements", "scripts/setup.sh", "CHANGELOG.md", "README.md"]),
  );
  // TypeScript only as declarations: an app's Node would not run it.
  expect(manifest.files.filter((pattern) => /[{,]mts[},]|[^d]\.mts$/.test(pattern))).toEqual([]);
  expect(manifest.scripts).toEqual({ prepack: "node scripts/pack.mjs before", postpack: "node scripts/pack.mjs after" });
});

it("has no hand-written .mjs where a module's JavaScript goes: npm pack would write over it", () => {
  const modules = codeFiles().filter((file) => file.endsWith(".mts"));
  expect(modules.filter((file) => codeFiles().includes(file.replace(/\.mts$/, ".mjs"))).map((file) => relative(PACKAGE_ROOT, file))).toEqual([]);
});
