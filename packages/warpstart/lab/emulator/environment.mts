// One execution environment: a fresh process started as Lambda starts it, talking to its own
// Runtime API. On a managed runtime (nodejs22.x, nodejs24.x): the runtime's Node with the flags
// its bootstrap derives from memory size and the real aws-lambda-ric. On a custom runtime: the
// layer's bootstrap (from the opt dir). Both with Lambda's variables and a read-only task root.
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { removeTree, spawnOwned } from "../../core/processes.mts";
import {
  accessKeyFor,
  bootstrapCommand,
  type FunctionSpec,
  functionEnvironment,
  type LocalServices,
  prepareTaskRoot,
  removeTaskRoot,
} from "../../emulation/function-environment.mts";
import { evictFromPageCache } from "../../emulation/page-cache.mts";
import { runtimeEntryOf, runtimeSdkFilesOf } from "../../emulation/runtime-sdk.mts";
import type { CodeLoading } from "../fidelity.mts";
import { copyOptDir } from "../opt-dir.mts";
import { type Invocation, RuntimeApi, type RuntimeReport } from "./runtime-api.mts";

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

/** How INIT ended: ready for events, or the reason it never will be. */
export type InitOutcome =
  | { kind: "ready"; initDurationMs: number }
  | { kind: "init-error"; initDurationMs: number; error: Extract<RuntimeReport, { kind: "error" }>; exit: Exit }
  | { kind: "exit"; initDurationMs: number; exit: Exit }
  | { kind: "timeout"; initDurationMs: number };

export type InvokeOutcome = RuntimeReport | { kind: "exit"; exit: Exit } | { kind: "timeout" };

export interface EnvironmentOptions {
  spec: FunctionSpec;
  services: LocalServices;
  /** Variables from the function's configuration: the template's Environment, or UpdateFunctionConfiguration's. */
  variables?: Record<string, string>;
  initializationType: "on-demand" | "provisioned-concurrency";
  /** The function version it runs: $LATEST (the default) or a published one (AWS_LAMBDA_FUNCTION_VERSION, its log stream's name). */
  version?: string;
  /** Every line the function prints, as it prints it (the lab's console, when verbose). */
  onLine?: (line: string) => void;
  /** Stop the process (SIGSTOP) while it waits for an event, as Lambda freezes an idle environment. */
  freezeWhenIdle?: boolean;
  /** What of its code INIT reads from storage (lab/fidelity.mts), dropped from the page cache first; default none. */
  codeLoading?: CodeLoading;
}

export class ExecutionEnvironment {
  readonly id = randomBytes(16).toString("hex");
  /** Its own credentials' access key: the local AWS records it with every call the environment makes. */
  readonly accessKeyId = accessKeyFor(this.id);
  private readonly runtimeApi = new RuntimeApi();
  private process: ChildProcess | null = null;
  private taskRoot: string | null = null;
  private optDir: string | null = null;
  private exitInfo: Exit | null = null;
  /** Resolves when its process exits, however it ends (never, for one whose process never started). */
  readonly exited: Promise<Exit>;
  private markExited!: (exit: Exit) => void;
  private logLines: string[] = [];
  private partial = "";
  private frozen = false;
  private running = false;
  /** When the process was started and when it first asked for an event (process.hrtime.bigint, the clock a function's own marks use). */
  spawnedAt: bigint | null = null;
  readyAt: bigint | null = null;

  private readonly options: EnvironmentOptions;

  constructor(options: EnvironmentOptions) {
    this.options = options;
    this.exited = new Promise((resolve) => (this.markExited = resolve));
  }

  /**
   * Node and the runtime client stay in memory (every function of the runtime loads them: on
   * Lambda, a shared runtime image, warm on a worker); the files a function loads are read from
   * storage, the runtime's SDK copy among them (docs/lab.md#code-loading).
   */
  private async dropCode(spec: FunctionSpec): Promise<void> {
    const { codeLoading = "none" } = this.options;
    if (codeLoading === "none") return;
    const runtimeSdk = codeLoading === "lambda" && spec.runtime.kind === "managed" ? runtimeSdkFilesOf(spec.codeDir, spec.runtime) : [];
    await evictFromPageCache(this.optDir ? [this.taskRoot!, this.optDir] : [this.taskRoot!], runtimeSdk);
  }

  get alive(): boolean {
    return this.process !== null && this.exitInfo === null;
  }

  /**
   * Makes its sandbox ready for INIT: the task root copied and what INIT will read dropped from the
   * page cache. That is the lab's work, not the function's, and its cost grows with what the
   * function can load: done ahead where the lab can (LambdaService, at a configuration update), it
   * stays out of the caller's cold E2E, as Lambda's placement of code in a sandbox does.
   */
  async stage(): Promise<string> {
    if (this.taskRoot) return this.taskRoot;
    const { spec } = this.options;
    const taskRoot = prepareTaskRoot(spec);
    this.taskRoot = taskRoot;
    // A custom runtime may write to its /opt (a cache): each environment gets its own copy, as each gets the layer as shipped.
    if (spec.optDir) this.optDir = spec.runtime.kind === "custom" ? copyOptDir(spec.optDir) : spec.optDir;
    await this.dropCode(spec);
    return taskRoot;
  }

  /** Whether its sandbox is ready and its process not started yet. */
  get staged(): boolean {
    return this.taskRoot !== null && this.process === null;
  }

  /** Starts the process (its sandbox staged first, unless it is) and waits until the runtime asks for its first event, at most initTimeoutMs. */
  async init(initTimeoutMs: number): Promise<InitOutcome> {
    const { spec, services, version = "$LATEST" } = this.options;
    const runtimeApi = await this.runtimeApi.listen();
    const taskRoot = await this.stage();
    const env = {
      ...functionEnvironment(spec, taskRoot, services, { accessKeyId: this.accessKeyId, variables: this.options.variables }),
      AWS_LAMBDA_FUNCTION_VERSION: version,
      AWS_LAMBDA_INITIALIZATION_TYPE: this.options.initializationType,
      AWS_LAMBDA_RUNTIME_API: runtimeApi,
      AWS_LAMBDA_LOG_STREAM_NAME: `${new Date().toISOString().slice(0, 10).replaceAll("-", "/")}/[${version}]${this.id}`,
    };
    const ready = new Promise<void>((resolve) => {
      this.runtimeApi.onNext = () => {
        this.readyAt ??= process.hrtime.bigint();
        resolve();
      };
    });
    this.runtimeApi.onIdle = () => {
      if (this.options.freezeWhenIdle && !this.running) this.freeze();
    };
    const [command, args] = launch(spec, taskRoot, this.optDir, env);
    this.spawnedAt = process.hrtime.bigint();
    // Ends with the lab however the lab ends, frozen or not (core/processes.mts).
    const child = spawnOwned(command, args, { cwd: taskRoot, env, stdio: ["ignore", "pipe", "pipe"] });
    this.process = child;
    child.stdout!.on("data", (chunk: Buffer) => this.collect(chunk));
    child.stderr!.on("data", (chunk: Buffer) => this.collect(chunk));
    child.on("error", (error) => this.collect(Buffer.from(`${error.message}\n`)));
    child.on("exit", (code, signal) => {
      this.exitInfo = { code, signal };
      this.markExited(this.exitInfo);
    });

    const outcome = await race(
      initTimeoutMs,
      ready.then(() => "ready" as const),
      this.exited,
    );
    const initDurationMs = Number((this.readyAt ?? process.hrtime.bigint()) - this.spawnedAt) / 1e6;
    if (outcome === "ready") return { kind: "ready", initDurationMs };
    if (outcome === "timeout") {
      await this.kill();
      return { kind: "timeout", initDurationMs };
    }
    this.flushPartialLine();
    const error = this.runtimeApi.initError;
    return error ? { kind: "init-error", initDurationMs, error, exit: outcome } : { kind: "exit", initDurationMs, exit: outcome };
  }

  /** Runs one invocation; the environment must be ready (init returned "ready"). */
  async invoke(invocation: Invocation, timeoutMs: number): Promise<InvokeOutcome> {
    this.running = true;
    this.thaw();
    const outcome = await race(timeoutMs, this.runtimeApi.deliver(invocation), this.exited).finally(() => (this.running = false));
    if (outcome === "timeout") {
      await this.kill();
      return { kind: "timeout" };
    }
    if ("kind" in outcome) return outcome;
    this.flushPartialLine();
    return { kind: "exit", exit: outcome };
  }

  get isFrozen(): boolean {
    return this.frozen;
  }

  /** SIGSTOP: timers, sockets and pending work wait until the next thaw, as on Lambda. */
  freeze(): void {
    if (this.alive && !this.frozen && this.process!.kill("SIGSTOP")) this.frozen = true;
  }

  thaw(): void {
    if (this.alive && this.frozen && this.process!.kill("SIGCONT")) this.frozen = false;
  }

  /** The lines printed since the last call. */
  takeLog(): string[] {
    const lines = this.logLines;
    this.logLines = [];
    return lines;
  }

  /** Peak resident memory of the process in MB (Linux /proc), as Lambda's Max Memory Used. */
  maxMemoryUsedMb(): number {
    try {
      const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.process?.pid}/status`, "utf8"))?.[1];
      return kb ? Math.ceil(Number(kb) / 1024) : 0;
    } catch {
      return 0;
    }
  }

  /**
   * Ends the process as Lambda's Shutdown phase ends a runtime: SIGTERM, and SIGKILL if it has not
   * exited within `graceMs`; then cleans up. What a process does on SIGTERM (write a CPU profile)
   * is then done.
   */
  async shutdown(graceMs: number): Promise<void> {
    if (this.process && this.exitInfo === null) {
      this.thaw();
      this.process.kill("SIGTERM");
      await race(graceMs, this.exited, this.exited);
    }
    await this.kill();
  }

  /** Ends the process (SIGKILL: Lambda gives no grace to a discarded environment) and cleans up. */
  async kill(): Promise<void> {
    if (this.process && this.exitInfo === null) {
      this.process.kill("SIGKILL");
      await this.exited;
    }
    this.runtimeApi.close();
    if (this.taskRoot) removeTaskRoot(this.taskRoot);
    if (this.optDir && this.optDir !== this.options.spec.optDir) removeTree(this.optDir);
    this.taskRoot = null;
    this.optDir = null;
  }

  private collect(chunk: Buffer): void {
    const text = this.partial + chunk.toString("utf8");
    const lines = text.split("\n");
    this.partial = lines.pop() ?? "";
    for (const line of lines) this.addLine(line);
  }

  private flushPartialLine(): void {
    if (this.partial) this.addLine(this.partial);
    this.partial = "";
  }

  /** Adds the lab's own line to its log (and its onLine), as if the function had printed it. */
  note(line: string): void {
    this.addLine(line);
  }

  private addLine(line: string): void {
    this.logLines.push(line);
    this.options.onLine?.(line);
  }
}

/** The command that starts the runtime: the managed runtime's node on the RIC (through the function's exec wrapper, if it names one), or a custom runtime's bootstrap. */
function launch(spec: FunctionSpec, taskRoot: string, optDir: string | null, env: Record<string, string>): [string, string[]] {
  const { runtime } = spec;
  if (runtime.kind === "managed")
    return bootstrapCommand([runtime.hostBinary, ...runtime.nodeFlags(spec.memoryMb), runtimeEntryOf(runtime)], env, { taskRoot, optDir });
  if (!optDir) throw new Error(`${spec.name} runs on the custom runtime ${runtime.name} but has no opt dir (its layer)`);
  return [join(optDir, "bootstrap"), []];
}

/** The first of: a value, the process exit, or "timeout" after ms. */
async function race<T>(ms: number, value: Promise<T>, exited: Promise<Exit>): Promise<T | Exit | "timeout"> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), ms)));
  try {
    return await Promise.race([value, exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
