// The build profiles, and the SDK trees they bundle from: in step with package.json.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PROFILES, profileNamed, UNUSED_CREDENTIAL_PROVIDERS, WARP_OPTIMIZATION_NAMES, warpAblations } from "../../builder/profiles.mts";
import { PROJECT_ROOT } from "../../core/paths.mts";

const manifest = (path: string) => JSON.parse(readFileSync(join(PROJECT_ROOT, path), "utf8"));

describe("profiles", () => {
  it("rejects an unknown profile with the list of known ones", () => {
    expect(() => profileNamed("Fast")).toThrow(
      'Unknown build profile "Fast". Profiles: Raw, Bundled, Optimized, Warp (and, to measure Warp\'s parts, Warp-no-noSharedConfigFiles, Warp-no-sdkChunk, Warp-no-codeCache, Warp-no-earlyLookup).',
    );
  });

  it("leaves the SDK to the runtime in Raw, bundles it as published in Bundled and patched in Optimized", () => {
    expect(PROFILES.Raw).toMatchObject({ sdk: "runtime", esbuild: { bundle: true } });
    expect(PROFILES.Bundled).toMatchObject({ sdk: "published", esbuild: { bundle: true, mainFields: ["module", "main"] } });
    expect(PROFILES.Optimized).toMatchObject({ sdk: "patched", esbuild: { ...PROFILES.Bundled.esbuild, external: UNUSED_CREDENTIAL_PROVIDERS } });
  });

  it("builds Warp with every optimization, and each ablation without exactly one of them", () => {
    expect(PROFILES.Warp).toMatchObject({
      sdk: "patched",
      sdkChunk: true,
      codeCache: true,
      earlyLookup: true,
      replace: { "@smithy/core/dist-es/submodules/config/shared-ini-file-loader/readFile.js": "src/warp/no-shared-config-files.mts" },
    });
    expect(Object.keys(warpAblations())).toEqual(WARP_OPTIMIZATION_NAMES.map((name) => `Warp-no-${name}`));
    expect(profileNamed("Warp-no-noSharedConfigFiles")).toEqual({ ...PROFILES.Warp, summary: expect.any(String), replace: undefined });
    expect(profileNamed("Warp-no-sdkChunk")).toEqual({ ...PROFILES.Warp, summary: expect.any(String), sdkChunk: undefined });
    expect(profileNamed("Warp-no-codeCache")).toEqual({ ...PROFILES.Warp, summary: expect.any(String), codeCache: undefined });
    expect(profileNamed("Warp-no-earlyLookup")).toEqual({ ...PROFILES.Warp, summary: expect.any(String), earlyLookup: undefined });
  });
});

describe("the SDK trees (scripts/sync-sdk-trees.mjs keeps them in step)", () => {
  const sdk = Object.entries(manifest("package.json").dependencies as Record<string, string>).filter(([name]) => name.startsWith("@aws-sdk/"));

  it("patches/ holds every @aws-sdk/* package of package.json at its version, pinned exactly", () => {
    const patched = manifest("patches/package.json").dependencies;
    for (const [name, version] of sdk) {
      expect(version).toMatch(/^\d+\.\d+\.\d+$/);
      expect([name, patched[name]]).toEqual([name, version]);
    }
  });

  it("patches/ pins and overrides each package a patch file names, at the version in its name", () => {
    const { dependencies, overrides } = manifest("patches/package.json");
    for (const file of readdirSync(join(PROJECT_ROOT, "patches")).filter((name) => name.endsWith(".patch"))) {
      const [scope, name, version] = file.split("+");
      expect(dependencies[`${scope}/${name}`]).toBe(version);
      expect(overrides[`${scope}/${name}`]).toBe(`$${scope}/${name}`);
    }
  });

  it("lab/runtime/ (the managed runtime's copy, for Raw) holds every client at the runtime's SDK version", () => {
    const runtime = manifest("lab/runtime/package.json");
    for (const [name] of sdk.filter(([name]) => name.startsWith("@aws-sdk/client-"))) expect(runtime.dependencies[name]).toBe(runtime.config.sdkVersion);
  });

  it("lab/runtime/ holds every other @aws-sdk/* package the project names, but those npm has no release of at the runtime's SDK version", () => {
    const runtime = manifest("lab/runtime/package.json");
    const { dependencies, devDependencies } = manifest("package.json");
    const named = Object.keys({ ...dependencies, ...devDependencies }).filter((name) => name.startsWith("@aws-sdk/"));
    const notInRuntime: string[] = runtime.config.notInRuntime ?? [];
    expect(notInRuntime).toContain("@aws-sdk/util-stream-node"); // its last release is 3.374.0
    for (const name of named) expect([name, runtime.dependencies[name]]).toEqual([name, notInRuntime.includes(name) ? undefined : runtime.config.sdkVersion]);
  });
});
