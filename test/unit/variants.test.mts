import { readFileSync } from "node:fs";
import { join } from "node:path";
import { UNUSED_CREDENTIAL_PROVIDERS, VARIANTS, variantNamed } from "../../build/variants.mts";
import { PROJECT_ROOT } from "../../lab/paths.mts";

const manifest = (path: string) => JSON.parse(readFileSync(join(PROJECT_ROOT, path), "utf8"));

describe("variants", () => {
  it("rejects an unknown variant with the list of known ones", () => {
    expect(() => variantNamed("Fast")).toThrow('Unknown variant "Fast". Known variants: Raw, Bundled, Optimized, Floor.');
  });

  it("builds Optimized as Bundled plus the credential-provider externals and the patched SDK", () => {
    expect(VARIANTS.Optimized.esbuild).toEqual({ ...VARIANTS.Bundled.esbuild, external: UNUSED_CREDENTIAL_PROVIDERS });
    expect(VARIANTS.Bundled.sdk).toBe("published");
    expect(VARIANTS.Optimized.sdk).toBe("patched");
  });

  it("patches the same SDK version the project depends on, pinned exactly", () => {
    const published = manifest("package.json").dependencies["@aws-sdk/client-sts"];
    const patched = manifest("patches/package.json").dependencies["@aws-sdk/client-sts"];
    expect(published).toMatch(/^\d+\.\d+\.\d+$/);
    expect(patched).toBe(published);
  });
});
