// How the managed nodejs22.x runtime starts a function, reproduced for local runs: the task
// root, the environment variables and the node flags its bootstrap derives from memory size.
// Sources: shared/LAMBDA-FACTS.md §1-2.
import { chmodSync, cpSync, mkdirSync, rmSync, symlinkSync, existsSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { RUNTIME_DIR, STATE_DIR } from "./paths.mts";

export interface FunctionSpec {
  name: string;
  /** The built artifact (e.g. .aws-sam/build/Optimized). */
  codeDir: string;
  handler: string;
  memoryMb: number;
  region?: string;
}

export interface LocalServices {
  stsEndpoint: string;
  caFile: string;
}

/** The flags /var/runtime/bootstrap passes to node for a memory size (integer arithmetic, as in its shell). */
export function nodeFlags(memoryMb: number): string[] {
  const newSpace = Math.floor(memoryMb / 10);
  return [
    "--expose-gc",
    "--max-http-header-size=81920",
    `--max-semi-space-size=${Math.floor(newSpace / 2)}`,
    `--max-old-space-size=${memoryMb - newSpace}`,
    // Lambda's nodejs22.x turns these two off (AWS docs, "Building Lambda functions with Node.js").
    "--no-experimental-require-module",
    "--no-experimental-detect-module",
  ];
}

/**
 * Copies the artifact to a fresh, read-only task root under .lab/var/task. Its parent holds
 * node_modules -> lab/runtime/node_modules, so a bare `import "@aws-sdk/..."` from the task root
 * finds the runtime's SDK copy first, as NODE_PATH makes it on Lambda (Node's ESM resolver
 * ignores NODE_PATH; a parent node_modules costs nothing at startup, a loader hook would).
 */
export function prepareTaskRoot(spec: FunctionSpec): string {
  const varDir = join(STATE_DIR, "var");
  const runtimeModules = join(varDir, "node_modules");
  mkdirSync(join(varDir, "task"), { recursive: true });
  if (!existsSync(runtimeModules)) symlinkSync(join(RUNTIME_DIR, "node_modules"), runtimeModules);
  const taskRoot = join(varDir, "task", `${spec.name}-${randomBytes(4).toString("hex")}`);
  cpSync(spec.codeDir, taskRoot, { recursive: true });
  chmodSync(taskRoot, 0o555); // Lambda's /var/task is read-only
  return taskRoot;
}

export function removeTaskRoot(taskRoot: string): void {
  chmodSync(taskRoot, 0o755);
  rmSync(taskRoot, { recursive: true, force: true });
}

/** The environment a function sees: Lambda's reserved variables, the lab's STS, nothing inherited. */
export function functionEnvironment(spec: FunctionSpec, taskRoot: string, services: LocalServices): Record<string, string> {
  const region = spec.region ?? "us-east-1";
  return {
    PATH: `${process.env.PATH}`,
    LANG: "en_US.UTF-8",
    TZ: ":UTC",
    _HANDLER: spec.handler,
    LAMBDA_TASK_ROOT: taskRoot,
    LAMBDA_RUNTIME_DIR: RUNTIME_DIR,
    NODE_PATH: [join(RUNTIME_DIR, "node_modules"), RUNTIME_DIR, taskRoot].join(":"),
    AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x",
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
