// The Runtime API client of the custom runtimes (Deno, Bun, any runtime given by path): what
// aws-lambda-ric is to nodejs22.x, in the few lines a custom runtime needs. It loads _HANDLER from
// LAMBDA_TASK_ROOT as the Node runtime does (index.handler -> index.mjs, .js or .cjs), then loops
// on /next. Only fetch and, where there is no Deno, `process` and node:fs, so that every runtime
// can run it. On Deno it uses Deno's own APIs: `process` or any node: module would load Deno's
// Node compatibility layer (~20 ms) for a handler that may not need it.
// Runtime API: https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html

interface DenoApi {
  env: { get(name: string): string | undefined; set(name: string, value: string): void; delete(name: string): void };
  statSync(path: string): unknown;
  exit(code: number): never;
}
const deno = (globalThis as { Deno?: DenoApi }).Deno;

interface System {
  getEnv(name: string): string | undefined;
  setEnv(name: string, value: string | null): void;
  exists(file: string): boolean;
  exit(code: number): never;
}

const system: System = deno
  ? {
      getEnv: (name) => deno.env.get(name),
      setEnv: (name, value) => (value === null ? deno.env.delete(name) : deno.env.set(name, value)),
      exists: (file) => {
        try {
          deno.statSync(file);
          return true;
        } catch {
          return false;
        }
      },
      exit: (code) => deno.exit(code),
    }
  : {
      getEnv: (name) => process.env[name],
      setEnv: (name, value) => {
        if (value === null) delete process.env[name];
        else process.env[name] = value;
      },
      exists: (await import("node:fs")).existsSync,
      exit: (code) => process.exit(code),
    };

interface LambdaError {
  errorType: string;
  errorMessage: string;
  stackTrace: string[];
}

type Handler = (event: unknown, context: Record<string, unknown>) => unknown;

const env = (name: string): string => {
  const value = system.getEnv(name);
  if (!value) throw new Error(`${name} is not set: this client runs under the Lambda Runtime API only`);
  return value;
};
const api = `http://${env("AWS_LAMBDA_RUNTIME_API")}/2018-06-01/runtime`;

class RuntimeError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

function lambdaError(error: unknown): LambdaError {
  if (error instanceof Error)
    return {
      errorType: error.name,
      errorMessage: error.message,
      stackTrace: (error.stack ?? "")
        .split("\n")
        .slice(1)
        .map((line) => line.trim()),
    };
  return { errorType: "Error", errorMessage: String(error), stackTrace: [] };
}

async function post(path: string, body: string, errorType?: string): Promise<void> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (errorType) headers["lambda-runtime-function-error-type"] = errorType;
  const response = await fetch(`${api}${path}`, { method: "POST", body, headers });
  await response.arrayBuffer(); // let the connection be reused
}

/** `index.handler` -> the export `handler` of <task root>/index.{mjs,js,cjs}; `a/b.c.d` -> export c.d of a/b.*. */
async function loadHandler(taskRoot: string, handlerName: string): Promise<Handler> {
  const match = /^((?:[^/.]+\/)*[^/.]+)\.([^/]+)$/.exec(handlerName);
  if (!match || handlerName.includes("..")) throw new RuntimeError("Runtime.MalformedHandlerName", `Bad handler ${handlerName}`);
  const [, modulePath, exportPath] = match as unknown as [string, string, string];
  const file = [".mjs", ".js", ".cjs"].map((extension) => `${taskRoot}/${modulePath}${extension}`).find((candidate) => system.exists(candidate));
  if (!file) throw new RuntimeError("Runtime.ImportModuleError", `Error: Cannot find module '${modulePath}'`);
  let target: unknown;
  try {
    target = await import(file);
  } catch (error) {
    // A module that throws while evaluating (e.g. its top-level await failed) is the function's error.
    if (error instanceof SyntaxError) throw new RuntimeError("Runtime.UserCodeSyntaxError", `${error.name}: ${error.message}`);
    throw error;
  }
  for (const key of exportPath.split(".")) target = (target as Record<string, unknown> | undefined)?.[key];
  if (typeof target !== "function") throw new RuntimeError("Runtime.HandlerNotFound", `${handlerName} is undefined or not exported`);
  return target as Handler;
}

function context(headers: Headers): Record<string, unknown> {
  const deadline = Number(headers.get("lambda-runtime-deadline-ms"));
  return {
    awsRequestId: headers.get("lambda-runtime-aws-request-id"),
    invokedFunctionArn: headers.get("lambda-runtime-invoked-function-arn"),
    functionName: system.getEnv("AWS_LAMBDA_FUNCTION_NAME"),
    functionVersion: system.getEnv("AWS_LAMBDA_FUNCTION_VERSION"),
    memoryLimitInMB: system.getEnv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE"),
    logGroupName: system.getEnv("AWS_LAMBDA_LOG_GROUP_NAME"),
    logStreamName: system.getEnv("AWS_LAMBDA_LOG_STREAM_NAME"),
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    callbackWaitsForEmptyEventLoop: false,
  };
}

let handler: Handler;
try {
  handler = await loadHandler(env("LAMBDA_TASK_ROOT"), env("_HANDLER"));
} catch (error) {
  const report = lambdaError(error);
  console.error(`INIT failed: ${report.errorType}: ${report.errorMessage}`);
  await post("/init/error", JSON.stringify(report), report.errorType);
  system.exit(1);
}

for (;;) {
  const next = await fetch(`${api}/invocation/next`);
  const event: unknown = await next.json();
  const requestId = next.headers.get("lambda-runtime-aws-request-id")!;
  system.setEnv("_X_AMZN_TRACE_ID", next.headers.get("lambda-runtime-trace-id"));
  try {
    const result = await handler(event, context(next.headers));
    await post(`/invocation/${encodeURIComponent(requestId)}/response`, JSON.stringify(result ?? null));
  } catch (error) {
    const report = lambdaError(error);
    console.error(`Invoke Error\t${JSON.stringify(report)}`);
    await post(`/invocation/${encodeURIComponent(requestId)}/error`, JSON.stringify(report), report.errorType);
  }
}
