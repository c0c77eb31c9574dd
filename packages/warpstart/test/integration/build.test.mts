// The artifacts of the real `sam build` (makefile builder -> builder/build.mts -> esbuild).

import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Metafile } from "esbuild";
import { BUILD_CACHE_VARIABLE } from "../../builder/build-cache.mts";
import { builtHandlerFile, handlerSource } from "../../builder/handler.mts";
import { UNUSED_CREDENTIAL_PROVIDERS } from "../../builder/profiles.mts";
import { bootstrapScript, CLIENT_FILE } from "../../builder/runtime-layer.mts";
import { buildDirOf, PACKAGE_ROOT } from "../../core/paths.mts";
import { execOwned } from "../../core/processes.mts";
import { CUSTOM_RUNTIMES, nodeFor, RUNTIMES } from "../../core/runtimes.mts";
import { readTemplate } from "../../core/template.mts";
import { functionEnvironment, labOverlayOf, servicesOf } from "../../emulation/function-environment.mts";
import { type LocalAws, startLocalAws } from "../../emulation/local-aws/local-aws.mts";
import { sam } from "../../lab/sam.mts";
import { DEMO_BUILD_DIR, EXAMPLES_TEMPLATE } from "../support/demo.mts";
import { builtFunction, builtFunctions, expectedSdkVersion, FUNCTION_NAMES, profileOf, run, STS_FUNCTION_NAMES, succeeded } from "../support/lab.mts";

/** e_machine of an ELF header (offset 18) for 64-bit ARM, Lambda's arm64. */
const ELF_MACHINE_AARCH64 = 183;
const metafile = (name: string, buildDir = DEMO_BUILD_DIR) => JSON.parse(readFileSync(join(buildDir, `${name}.meta.json`), "utf8")) as Metafile;
const handlerOf = (name: string) => builtFunctions().find((fn) => fn.logicalId === name)!;
const artifact = (name: string) => readFileSync(join(DEMO_BUILD_DIR, name, builtHandlerFile(handlerOf(name))), "utf8");
/** The npm packages esbuild put into a bundle, e.g. "@aws-sdk/credential-provider-ini". */
const bundledPackages = (name: string) =>
  new Set(Object.keys(metafile(name).inputs).flatMap((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? []));

it.each([".", "examples"])("sam validate --lint passes (%s)", async (app) => {
  await expect(sam(["validate", "--lint"], { quiet: true, cwd: join(DEMO_BUILD_DIR, "../..", app) })).resolves.toContain("is a valid SAM Template");
});

describe("where the runtime finds the handler", () => {
  it.each(FUNCTION_NAMES)("%s's artifact holds the module its Handler names, in the format its template asks for", (name) => {
    const fn = handlerOf(name);
    const file = builtHandlerFile(fn);
    expect(file).toBe(`${fn.handler.replace(/\.handler$/, "")}.${name === "Cjs" ? "cjs" : "mjs"}`);
  });
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
  const warpDir = join(DEMO_BUILD_DIR, "Warp/src/functions/identity");

  it("bundles the SDK as a chunk with the V8 code cache of the function's architecture beside the handler; this machine's is the lab's alone", () => {
    const inputs = Object.keys(metafile("Warp").inputs);
    expect(inputs).toContain("src/warp/sdk-chunk-loader.mts");
    expect(inputs).toContain("<sdk-chunk>");
    expect(readdirSync(warpDir).sort()).toEqual(["index.mjs", "sdk.arm64.cache", "sdk.cjs"]);
    expect(readdirSync(join(labOverlayOf(join(DEMO_BUILD_DIR, "Warp")), "src/functions/identity"))).toEqual([`sdk.${process.arch}.cache`]);
  });

  it("ships a cache the arm64 Node takes: the deployed artifact's INIT under qemu-aarch64 (nodejs22.x's flags at 512 MB) accepts it", async () => {
    const [command, prefix] = nodeFor(RUNTIMES.node22, "arm64");
    const artifactDir = join(DEMO_BUILD_DIR, "Warp");
    const spec = { ...builtFunction("Warp"), codeDir: artifactDir };
    const aws = await startLocalAws();
    try {
      const env = functionEnvironment(spec, artifactDir, servicesOf(aws));
      const child = join(PACKAGE_ROOT, "builder/code-cache-child.mjs");
      const verdict = join(mkdtempSync(join(tmpdir(), "warpstart-verdict-")), "verdict");
      await execOwned(command, [...prefix, ...RUNTIMES.node22.nodeFlags(512), child, "status", join(warpDir, "index.mjs"), verdict], {
        env,
        cwd: artifactDir,
        timeout: 120_000,
      });
      expect(readFileSync(verdict, "utf8")).toBe("accepted");
      rmSync(dirname(verdict), { recursive: true });
    } finally {
      await aws.stop();
    }
  }, 150_000);

  it("checks an arm64 cache under qemu once per Node and flags: the next build of that toolchain says an earlier build's check stands for its own", async () => {
    const template = join(DEMO_BUILD_DIR, "../../template.yaml");
    const out = mkdtempSync(join(tmpdir(), "warpstart-checks-"));
    // `warpstart build` as sam build runs it, in a lab home of its own: the other test files' Warp builds, beside it, note their checks in theirs.
    const env = { ...process.env, XDG_CACHE_HOME: join(out, "cache"), [BUILD_CACHE_VARIABLE]: "off" };
    const build = async (dir: string) =>
      (
        await execOwned(process.execPath, [join(PACKAGE_ROOT, "cli/warpstart.mts"), "build", "--template", template, "Warp", join(out, dir)], {
          env,
          timeout: 140_000,
        })
      ).stdout;
    try {
      expect(await build("first")).toMatch(/V8 code cache [\d.]+ KiB \(arm64 and x86_64: each accepted on a test INIT\)/);
      expect(await build("next")).toMatch(
        /V8 code cache [\d.]+ KiB \(x86_64: accepted on a test INIT; arm64: accepted on an earlier build's, of the same Node and flags\)/,
      );
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 300_000);

  it("keeps the SDK out of the handler: every SDK import reads the chunk's copy", () => {
    expect(artifact("Warp")).not.toContain("GetCallerIdentityCommand = class");
    expect(artifact("Warp")).toContain('sdkPackages["@aws-sdk/client-sts"]');
  });

  it("reads no shared config file: fs/promises is not even in the chunk", () => {
    expect(readFileSync(join(warpDir, "sdk.cjs"), "utf8")).not.toContain("fs/promises");
    expect(artifact("Optimized")).toContain("fs/promises");
  });

  it.each(
    readTemplate(EXAMPLES_TEMPLATE)
      .functions.filter((fn) => fn.buildProperties.Profile === "Warp")
      .map((fn) => [fn.logicalId, fn]),
  )("puts exactly the clients %s's handler imports into its chunk", (name, fn) => {
    const artifactDir = join(buildDirOf(EXAMPLES_TEMPLATE), name);
    const beside = dirname(join(artifactDir, builtHandlerFile({ ...fn, codeDir: artifactDir })));
    const chunk = readFileSync(join(beside, "sdk.cjs"), "utf8");
    const imported = [...readFileSync(handlerSource(fn).source, "utf8").matchAll(/from "(@aws-sdk\/client-[\w-]+)"/g)].map((m) => m[1]);
    expect(imported.length).toBeGreaterThan(0);
    for (const client of imported) expect(chunk).toContain(`"${client}"`);
    expect(chunk).not.toContain('"@aws-sdk/client-sts"');
    expect(statSync(join(beside, "sdk.arm64.cache")).size).toBeGreaterThan(0);
  });
});

describe.each(STS_FUNCTION_NAMES)("%s build-time constants", (name) => {
  it("are embedded as literals; no environment variable is read for them", () => {
    const code = artifact(name);
    expect(code).not.toMatch(/WARPSTART_/);
    // Minified builds drop the space after the colon.
    expect(code.replace(/: /g, ":")).toContain(`function:${JSON.stringify(name)}`);
    expect(code.replace(/: /g, ":")).toContain(`profile:${JSON.stringify(profileOf(name))}`);
    if (name !== "Floor") expect(code.replace(/: /g, ":")).toContain(`sdkVersion:${JSON.stringify(expectedSdkVersion(name))}`);
  });
});

it("embeds the template's Define constants (NoKeepAlive: KEEP_ALIVE false)", () => {
  expect(artifact("NoKeepAlive")).toMatch(/^var keepAlive = false;$/m);
  expect(artifact("Optimized")).toMatch(/typeof KEEP_ALIVE === "undefined"/);
});

describe("no http at INIT (the guarantee the seed's node-http-handler patch gave)", () => {
  let aws: LocalAws;
  beforeAll(async () => {
    aws = await startLocalAws();
  });
  afterAll(async () => {
    await aws?.stop();
  });
  const HTTP_MODULES = ["http", "http2", "internal/deps/undici/undici"];

  it("Optimized loads neither http, http2 nor undici during INIT on Node 22", async () => {
    const { builtinsAtReady } = succeeded(await run(builtFunction("Optimized"), servicesOf(aws)));
    expect(builtinsAtReady).toContain("https");
    expect(HTTP_MODULES.filter((name) => builtinsAtReady.includes(name))).toEqual([]);
  });

  it.each(["Optimized", "Warp"])("%s's INIT does not load perf_hooks: timing the call costs the handler nothing Floor does not pay", async (name) => {
    const { builtinsAtReady } = succeeded(await run(builtFunction(name), servicesOf(aws)));
    expect(builtinsAtReady).not.toContain("perf_hooks");
  });

  it("Bundled does load them (so this check can tell)", async () => {
    const { builtinsAtReady } = succeeded(await run(builtFunction("Bundled"), servicesOf(aws)));
    expect(HTTP_MODULES.filter((name) => builtinsAtReady.includes(name))).toEqual(HTTP_MODULES);
  });
});

describe.each(CUSTOM_RUNTIMES)("the $layer layer (the $name custom runtime)", (runtime) => {
  const layer = join(DEMO_BUILD_DIR, runtime.layer!);

  it("holds an executable bootstrap, the bundled Runtime API client and the runtime's Linux arm64 binary from the npm registry", () => {
    expect(statSync(join(layer, "bootstrap")).mode & 0o111).not.toBe(0);
    expect(readFileSync(join(layer, "bootstrap"), "utf8")).toBe(bootstrapScript(runtime));
    expect(readFileSync(join(layer, CLIENT_FILE), "utf8")).toContain("/invocation/next");
    const header = readFileSync(join(layer, "bin", runtime.binaryName)).subarray(0, 20);
    expect(header.subarray(0, 4).toString("latin1")).toBe("\x7fELF");
    expect(header.readUInt16LE(18)).toBe(ELF_MACHINE_AARCH64);
    expect(statSync(join(layer, "bin", runtime.binaryName)).size).toBe(statSync(runtime.lambdaBinary!).size);
  });
});

describe("startup caches", () => {
  it("ships no Deno cache: the arm64 Deno Lambda runs rejects what the x86-64 one makes", () => {
    expect(RUNTIMES.deno.startupCache).toBeNull();
    expect(readdirSync(join(DEMO_BUILD_DIR, RUNTIMES.deno.layer))).toEqual(expect.not.arrayContaining(["deno-dir"]));
  });
});
