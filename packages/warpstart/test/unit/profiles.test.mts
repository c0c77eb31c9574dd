// The build profiles, and the SDK trees they bundle from: in step with package.json.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import {
  PROFILES,
  type Profile,
  profileNamed,
  UNUSED_CREDENTIAL_PROVIDERS,
  WARP_OPTIMIZATION_NAMES,
  type WarpOptimization,
  warpAblations,
} from "../../builder/profiles.mts";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { DEMO_ROOT } from "../support/demo.mts";

const manifest = (path: string) => JSON.parse(readFileSync(join(PACKAGE_ROOT, path), "utf8"));

describe("profiles", () => {
  it("rejects an unknown profile with the list of known ones", () => {
    expect(() => profileNamed("Fast")).toThrow(
      'Unknown build profile "Fast". Profiles: Raw, Bundled, Optimized, Warp; to measure Warp against what users pick instead, SamEsbuild, NodeCompileCache, RuntimeSdk; to measure Warp\'s parts, Warp-no-noSharedConfigFiles, Warp-no-sdkChunk, Warp-no-libraryChunk, Warp-no-codeCache, Warp-no-firstInvoke, Warp-no-deferBuiltins, Warp-no-earlyLookup.',
    );
  });

  it("builds the peers as their tools do: SAM's esbuild builder as sam init sets it, Bundled with Node's compile cache, CDK's SDK left to the runtime", () => {
    expect(profileNamed("SamEsbuild")).toMatchObject({
      sdk: "published",
      format: "cjs",
      esbuild: { bundle: true, minify: true, sourcemap: true, target: "es2020" },
      environment: { NODE_OPTIONS: "--enable-source-maps" },
    });
    expect(profileNamed("NodeCompileCache")).toMatchObject({ sdk: "published", esbuild: PROFILES.Bundled.esbuild, nodeCompileCache: true });
    expect(profileNamed("RuntimeSdk")).toMatchObject({ sdk: "runtime", format: "cjs", esbuild: PROFILES.Raw.esbuild });
  });

  it("leaves the SDK to the runtime in Raw, bundles it as published in Bundled and patched in Optimized", () => {
    expect(PROFILES.Raw).toMatchObject({ sdk: "runtime", esbuild: { bundle: true } });
    expect(PROFILES.Bundled).toMatchObject({ sdk: "published", esbuild: { bundle: true, mainFields: ["module", "main"] } });
    expect(PROFILES.Optimized).toMatchObject({ sdk: "patched", esbuild: { ...PROFILES.Bundled.esbuild, external: UNUSED_CREDENTIAL_PROVIDERS } });
  });

  it("builds Warp with every optimization", () => {
    expect(PROFILES.Warp).toMatchObject({
      sdk: "patched",
      sdkChunk: true,
      libraryChunk: true,
      codeCache: true,
      firstInvoke: true,
      deferBuiltins: true,
      earlyLookup: true,
      replace: { "@smithy/core/dist-es/submodules/config/shared-ini-file-loader/readFile.js": "src/warp/no-shared-config-files" },
    });
  });

  // What each optimization sets in a profile (builder/profiles.mts documents them): the one field
  // its ablation must give back as Optimized has it, keeping every other field as Warp has it.
  const EFFECT: Record<WarpOptimization, keyof Profile> = {
    noSharedConfigFiles: "replace",
    sdkChunk: "sdkChunk",
    libraryChunk: "libraryChunk",
    codeCache: "codeCache",
    firstInvoke: "firstInvoke",
    deferBuiltins: "deferBuiltins",
    earlyLookup: "earlyLookup",
  };
  /** The fields, but its one-line summary, in which two profiles differ. */
  const differing = (a: Profile, b: Profile) =>
    [...new Set([...Object.keys(a), ...Object.keys(b)])]
      .filter((key) => key !== "summary" && !isDeepStrictEqual(a[key as keyof Profile], b[key as keyof Profile]))
      .sort();

  it("adds to Optimized exactly the effects of its optimizations", () => {
    expect(differing(PROFILES.Optimized, PROFILES.Warp)).toEqual(Object.values(EFFECT).sort());
  });

  it.each(WARP_OPTIMIZATION_NAMES)("builds Warp-no-%s as Warp without that optimization's effect alone, as Optimized has it", (name) => {
    const ablation = profileNamed(`Warp-no-${name}`);
    expect(warpAblations()[`Warp-no-${name}`]).toEqual(ablation);
    expect(differing(PROFILES.Warp, ablation)).toEqual([EFFECT[name]]);
    expect(ablation[EFFECT[name]]).toEqual(PROFILES.Optimized[EFFECT[name]]);
    expect(ablation.summary).toContain(name);
  });

  it("names the ablations Warp-no-<optimization>, one per optimization", () => {
    expect(Object.keys(warpAblations())).toEqual(WARP_OPTIMIZATION_NAMES.map((name) => `Warp-no-${name}`));
  });
});

describe("the SDK trees (scripts/sync-sdk-trees.mjs keeps them in step)", () => {
  // The demo app's own clients: what its lockfile puts at the top of node_modules.
  const demo = JSON.parse(readFileSync(join(DEMO_ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  const sdk = Object.entries(demo.dependencies).filter(([name]) => name.startsWith("@aws-sdk/"));

  const runtimes = readdirSync(join(PACKAGE_ROOT, "emulation/runtime"), { withFileTypes: true }).filter((entry) => entry.isDirectory());
  const release = (version: string) => version.split(".").map(Number) as [number, number, number];
  const atOrBelow = (version: string, limit: string) => {
    const [a, b] = [release(version), release(limit)];
    return a[0] === b[0] && (a[1] < b[1] || (a[1] === b[1] && a[2] <= b[2]));
  };

  it("has a stand-in for each managed Node runtime: nodejs22.x's and nodejs24.x's", () => {
    expect(runtimes.map((entry) => entry.name).sort()).toEqual(["node22", "node24"]);
  });

  it.each(["node22", "node24"])("emulation/runtime/%s (the managed runtime's copy, for Raw) holds every client at the runtime's SDK version", (name) => {
    const runtime = manifest(`emulation/runtime/${name}/package.json`);
    expect(runtime.config.source).toMatch(/\w/);
    for (const [client] of sdk.filter(([client]) => client.startsWith("@aws-sdk/client-")))
      expect([client, runtime.dependencies[client]]).toEqual([client, runtime.config.sdkVersion]);
  });

  it.each(["node22", "node24"])(
    "emulation/runtime/%s holds every other @aws-sdk/* package the project names at a release the runtime's SDK has, but those it dropped",
    (name) => {
      const runtime = manifest(`emulation/runtime/${name}/package.json`);
      const { dependencies, devDependencies } = manifest("package.json");
      const named = Object.keys({ ...dependencies, ...devDependencies }).filter((pkg) => pkg.startsWith("@aws-sdk/"));
      const notInRuntime: string[] = runtime.config.notInRuntime ?? [];
      expect(notInRuntime).toContain("@aws-sdk/util-stream-node"); // its last release is 3.374.0
      for (const pkg of named) {
        if (notInRuntime.includes(pkg)) expect([pkg, runtime.dependencies[pkg]]).toEqual([pkg, undefined]);
        else expect([pkg, atOrBelow(runtime.dependencies[pkg], runtime.config.sdkVersion)]).toEqual([pkg, true]);
      }
    },
  );
});
