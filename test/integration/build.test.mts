// The artifacts of the real `sam build` (makefile builder -> build/build.mts -> esbuild).
import type { Metafile } from "esbuild";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { handlerFile } from "../../build/build.mts";
import { UNUSED_CREDENTIAL_PROVIDERS, VARIANT_NAMES, variantNamed } from "../../build/variants.mts";
import { BUILD_DIR } from "../../lab/paths.mts";
import { sam } from "../../lab/sam.mts";
import { type LocalSts, startLocalSts } from "../../lab/sts/local-sts.mts";
import { builtFunction, expectedSdkVersion, run, succeeded } from "../support/lab.mts";

const metafile = (name: string) => JSON.parse(readFileSync(join(BUILD_DIR, `${name}.meta.json`), "utf8")) as Metafile;
const artifact = (name: string) => readFileSync(join(BUILD_DIR, name, handlerFile(variantNamed(name))), "utf8");
/** The npm packages esbuild put into a bundle, e.g. "@aws-sdk/credential-provider-ini". */
const bundledPackages = (name: string) =>
  new Set(Object.keys(metafile(name).inputs).flatMap((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? []));

it("sam validate --lint passes", async () => {
  await expect(sam(["validate", "--lint"], { quiet: true })).resolves.toContain("is a valid SAM Template");
});

describe("credential providers", () => {
  it("Optimized bundles none of the providers Lambda never reaches", () => {
    const packages = bundledPackages("Optimized");
    expect(UNUSED_CREDENTIAL_PROVIDERS.filter((name) => packages.has(name))).toEqual([]);
    expect(packages.has("@aws-sdk/credential-provider-env")).toBe(true);
  });

  it("Bundled, as AWS guides, still carries them", () => {
    const packages = bundledPackages("Bundled");
    expect(UNUSED_CREDENTIAL_PROVIDERS.filter((name) => packages.has(name))).toEqual(UNUSED_CREDENTIAL_PROVIDERS);
  });

  it("Raw bundles no package at all: it imports the SDK the runtime provides", () => {
    expect([...bundledPackages("Raw")]).toEqual([]);
    expect(artifact("Raw")).toMatch(/from "@aws-sdk\/client-sts"/);
  });
});

describe("Warp", () => {
  it("bundles the SDK as a chunk with its V8 code cache", () => {
    const inputs = Object.keys(metafile("Warp").inputs);
    expect(inputs).toContain("src/warp/sdk-chunk-loader.mts");
    expect(inputs).toContain("src/warp/sdk-chunk.mts");
    expect(existsSync(join(BUILD_DIR, "Warp/sdk.cjs"))).toBe(true);
    expect(statSync(join(BUILD_DIR, "Warp/sdk.cache")).size).toBeGreaterThan(0);
  });

  it("reads no shared config file: fs/promises is not even in the chunk", () => {
    expect(readFileSync(join(BUILD_DIR, "Warp/sdk.cjs"), "utf8")).not.toContain("fs/promises");
    expect(artifact("Optimized")).toContain("fs/promises");
  });
});

describe.each(VARIANT_NAMES)("%s build-time constants", (name) => {
  it("are embedded as literals; no environment variable is read for them", () => {
    const code = artifact(name);
    expect(code).not.toMatch(/WARPSTART_/);
    // Minified builds drop the space after the colon.
    expect(code.replace(/: /g, ":")).toContain(`variant:${JSON.stringify(name)}`);
    expect(code.replace(/: /g, ":")).toContain(`sdkVersion:${JSON.stringify(expectedSdkVersion(name))}`);
  });
});

describe("no http at INIT (the guarantee the seed's node-http-handler patch gave)", () => {
  let sts: LocalSts;
  beforeAll(async () => {
    sts = await startLocalSts();
  });
  afterAll(async () => {
    await sts?.stop();
  });
  const HTTP_MODULES = ["http", "http2", "internal/deps/undici/undici"];

  it("Optimized loads neither http, http2 nor undici during INIT on Node 22", async () => {
    const { builtinsAtReady } = succeeded(await run(builtFunction("Optimized"), sts));
    expect(builtinsAtReady).toContain("https");
    expect(HTTP_MODULES.filter((name) => builtinsAtReady.includes(name))).toEqual([]);
  });

  it("Bundled does load them (so this check can tell)", async () => {
    const { builtinsAtReady } = succeeded(await run(builtFunction("Bundled"), sts));
    expect(HTTP_MODULES.filter((name) => builtinsAtReady.includes(name))).toEqual(HTTP_MODULES);
  });
});
