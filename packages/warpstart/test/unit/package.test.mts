// The package as npm packs it: its files alone, for an app's node_modules; what its code imports
// is tools/dependencies, pinned by a lockfile that is this repository's own tree of it (what the
// package's home installs), at the versions package.json names.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { DEPENDENCIES, lockText } from "../../scripts/pin-dependencies.mjs";

type Manifest = { dependencies?: Record<string, string>; devDependencies: Record<string, string>; files: string[]; bin: Record<string, string> };
const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as Manifest;
const pinned = JSON.parse(readFileSync(join(DEPENDENCIES, "package.json"), "utf8")) as { dependencies: Record<string, string> };

it("installs nothing into an app but its files: what it imports is tools/dependencies, at package.json's versions", () => {
  expect(manifest.dependencies).toBeUndefined();
  for (const [name, version] of Object.entries(pinned.dependencies)) expect([name, manifest.devDependencies[name]]).toEqual([name, version]);
});

it("tools/dependencies/package-lock.json is the repository's tree of those dependencies (npm install writes it)", () => {
  expect(readFileSync(join(DEPENDENCIES, "package-lock.json"), "utf8")).toBe(lockText());
});

it("packs its program, its Makefile rule, the pins of its tools and the changelog its README links", () => {
  expect(manifest.bin).toEqual({ warpstart: "warpstart.mjs" });
  expect(manifest.files).toEqual(
    expect.arrayContaining(["warpstart.mjs", "warpstart.mk", "tools/*/package*.json", "scripts", "requirements.txt", "CHANGELOG.md"]),
  );
});
