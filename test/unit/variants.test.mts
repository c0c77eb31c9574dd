import { readFileSync } from "node:fs";
import { join } from "node:path";
import { UNUSED_CREDENTIAL_PROVIDERS, VARIANTS, WARP_OPTIMIZATION_NAMES, WARP_OPTIMIZATIONS, variantNamed, warp, warpAblations } from "../../build/variants.mts";
import { PROJECT_ROOT } from "../../lab/paths.mts";

const manifest = (path: string) => JSON.parse(readFileSync(join(PROJECT_ROOT, path), "utf8"));

describe("variants", () => {
  it("rejects an unknown variant with the list of known ones", () => {
    expect(() => variantNamed("Fast")).toThrow(
      'Unknown variant "Fast". Known variants: Raw, Bundled, Optimized, Warp, Floor, Cjs, NoKeepAlive (and Warp-no-noSharedConfigFiles, Warp-no-sdkChunk, Warp-no-codeCache).',
    );
  });

  it("builds Optimized as Bundled plus the credential-provider externals and the patched SDK", () => {
    expect(VARIANTS.Optimized.esbuild).toEqual({ ...VARIANTS.Bundled.esbuild, external: UNUSED_CREDENTIAL_PROVIDERS });
    expect(VARIANTS.Bundled.sdk).toBe("published");
    expect(VARIANTS.Optimized.sdk).toBe("patched");
  });

  it("builds Warp as Optimized plus every Warp optimization, and each ablation as Warp without one", () => {
    expect(warp()).toEqual(WARP_OPTIMIZATION_NAMES.reduce((variant, name) => WARP_OPTIMIZATIONS[name](variant), { ...VARIANTS.Optimized, summary: VARIANTS.Warp.summary }));
    expect(VARIANTS.Warp).toMatchObject({ sdk: "patched", sdkChunk: true, codeCache: true, esbuild: { external: UNUSED_CREDENTIAL_PROVIDERS } });
    expect(Object.keys(variantNamed("Warp-no-noSharedConfigFiles").replace ?? {})).toEqual([]);
    expect(variantNamed("Warp-no-sdkChunk")).toMatchObject({ codeCache: true });
    expect(variantNamed("Warp-no-sdkChunk").sdkChunk).toBeUndefined();
    expect(Object.keys(warpAblations())).toEqual(WARP_OPTIMIZATION_NAMES.map((name) => `Warp-no-${name}`));
  });

  it("builds Cjs and NoKeepAlive as Optimized with one difference each: the handler's format, the agent's keep-alive", () => {
    expect(VARIANTS.Cjs).toEqual({ ...VARIANTS.Optimized, summary: VARIANTS.Cjs.summary, entry: "cjs", format: "cjs" });
    expect(VARIANTS.NoKeepAlive).toEqual({ ...VARIANTS.Optimized, summary: VARIANTS.NoKeepAlive.summary, keepAlive: false });
  });

  it("patches the same SDK version the project depends on, pinned exactly", () => {
    const published = manifest("package.json").dependencies["@aws-sdk/client-sts"];
    const patched = manifest("patches/package.json").dependencies["@aws-sdk/client-sts"];
    expect(published).toMatch(/^\d+\.\d+\.\d+$/);
    expect(patched).toBe(published);
  });
});
