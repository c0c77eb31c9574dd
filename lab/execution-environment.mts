// How Lambda starts a function, reproduced for local runs: the task root, the environment
// variables, and for a custom runtime the layers at /opt. (The node flags the managed runtimes
// derive from memory size are in build/runtimes.mts.) Sources: shared/LAMBDA-FACTS.md §1-2.
import { chmodSync, cpSync, mkdirSync, rmSync, symlinkSync, existsSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { buildRuntimeLayer } from "../build/runtime-layer.mts";
import type { CustomRuntime, Runtime } from "../build/runtimes.mts";
import { RUNTIME_DIR, STATE_DIR } from "./paths.mts";
import type { TemplateLayer } from "./template.mts";

export interface FunctionSpec {
  name: string;
  /** The built artifact (e.g. .aws-sam/build/Optimized). */
  codeDir: string;
  handler: string;
  memoryMb: number;
  region?: string;
  /** What runs it. */
  runtime: Runtime;
  /** A custom runtime's stand-in for /opt: its layer, with the host's binary (prepareOptDir). */
  optDir?: string;
}

export interface LocalServices {
  stsEndpoint: string;
  caFile: string;
}

/**
 * Copies the artifact to a fresh, read-only task root. For the managed runtimes it is under
 * .lab/var/task, whose parent holds node_modules -> lab/runtime/node_modules, so a bare
 * `import "@aws-sdk/..."` from the task root finds the runtime's SDK copy first, as NODE_PATH makes
 * it on Lambda (Node's ESM resolver ignores NODE_PATH; a parent node_modules costs nothing at
 * startup, a loader hook would). A custom runtime ships no SDK: its task roots are under the
 * system's temporary directory, where no node_modules of the project's is in reach.
 */
export function prepareTaskRoot(spec: FunctionSpec): string {
  const managed = spec.runtime.kind === "managed";
  const varDir = managed ? join(STATE_DIR, "var") : join(tmpdir(), "warpstart-lab");
  mkdirSync(join(varDir, "task"), { recursive: true });
  const runtimeModules = join(varDir, "node_modules");
  if (managed && !existsSync(runtimeModules)) symlinkSync(join(RUNTIME_DIR, "node_modules"), runtimeModules);
  return readOnlyCopy(spec.codeDir, join(varDir, "task", spec.name)); // Lambda's /var/task is read-only
}

/**
 * An environment's own copy of an opt dir (the binary stays a link): the lab runs as root, whom a
 * read-only directory does not stop, so a runtime that writes to its cache would otherwise warm it
 * for the environments after it; on Lambda every environment starts from the layer as shipped.
 */
export function copyOptDir(optDir: string): string {
  return readOnlyCopy(optDir, `${optDir}-env`);
}

/** A read-only copy of `source` at `<base>-<random id>` (links stay links). */
function readOnlyCopy(source: string, base: string): string {
  const copy = `${base}-${randomBytes(4).toString("hex")}`;
  cpSync(source, copy, { recursive: true, verbatimSymlinks: true });
  chmodSync(copy, 0o555);
  return copy;
}

/** Removes a task root or an opt dir (read-only copies). */
export function removeReadOnlyCopy(dir: string): void {
  chmodSync(dir, 0o755);
  rmSync(dir, { recursive: true, force: true });
}

/**
 * A custom runtime's stand-in for /opt under .lab/opt/<runtime>-<id>, read-only as on Lambda: the
 * layer `sam build` made, with bin/<binary> pointing at the host's binary of the same version
 * (the layer's own is Linux arm64); for a runtime given by path, a layer built here.
 */
export async function prepareOptDir(runtime: CustomRuntime, layers: TemplateLayer[]): Promise<string> {
  const optDir = join(STATE_DIR, "opt", `${runtime.name}-${randomBytes(4).toString("hex")}`);
  const layer = layers.find((candidate) => candidate.logicalId === runtime.layer);
  if (layer) {
    const binary = join(layer.contentDir, "bin", runtime.binaryName);
    cpSync(layer.contentDir, optDir, { recursive: true, filter: (source) => source !== binary });
    symlinkSync(runtime.hostBinary, join(optDir, relative(layer.contentDir, binary)));
  } else {
    await buildRuntimeLayer(runtime, optDir, { binary: "host" });
  }
  chmodSync(optDir, 0o555);
  return optDir;
}

/** The environment a function sees: Lambda's reserved variables, the lab's STS, nothing inherited. */
export function functionEnvironment(spec: FunctionSpec, taskRoot: string, services: LocalServices): Record<string, string> {
  const region = spec.region ?? "us-east-1";
  const { runtime } = spec;
  // Only the managed runtimes' bootstraps set these (a custom runtime's bootstrap is the function's own).
  const managed: Record<string, string> =
    runtime.kind === "managed"
      ? { LAMBDA_RUNTIME_DIR: RUNTIME_DIR, NODE_PATH: [join(RUNTIME_DIR, "node_modules"), RUNTIME_DIR, taskRoot].join(":"), AWS_EXECUTION_ENV: `AWS_Lambda_${runtime.lambdaRuntime}` }
      : { LAMBDA_RUNTIME_DIR: "/var/runtime" };
  return {
    PATH: `${process.env.PATH}`,
    LANG: "en_US.UTF-8",
    TZ: ":UTC",
    _HANDLER: spec.handler,
    LAMBDA_TASK_ROOT: taskRoot,
    ...managed,
    AWS_LAMBDA_FUNCTION_NAME: spec.name,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(spec.memoryMb),
    AWS_LAMBDA_FUNCTION_VERSION: "$LATEST",
    AWS_LAMBDA_INITIALIZATION_TYPE: "on-demand",
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${spec.name}`,
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    // Credentials arrive as environment variables on Lambda; moto accepts any.
    AWS_ACCESS_KEY_ID: "AKIAIOSFODNN7EXAMPLE",
    AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    AWS_SESSION_TOKEN: "warpstart-lab-session",
    AWS_ENDPOINT_URL_STS: services.stsEndpoint,
    NODE_EXTRA_CA_CERTS: services.caFile,
  };
}
