// The functions of a built template, as the Lambda service runs them: an invoke takes an idle
// environment or starts a new one (a cold start), configuration updates discard environments.
// A function is its $LATEST and, with AutoPublishAlias, the version SAM publishes (1) and the
// alias pointing to it, which holds the provisioned environments and which API events invoke.
import { randomBytes, randomUUID } from "node:crypto";
import { errorMessage } from "../../core/errors.mts";
import type { AwsCall } from "../../core/init-services.mts";
import { endLine, initReportLine, initStartLine, reportLine, startLine } from "../../core/lambda-logs.mts";
import type { Runtime } from "../../core/runtimes.mts";
import type { TemplateFunction } from "../../core/template.mts";
import type { LocalServices } from "../../emulation/function-environment.mts";
import { NOT_SERVED } from "../../emulation/local-aws/local-aws.mts";
import type { CodeLoading } from "../fidelity.mts";
import { ExecutionEnvironment, type InitOutcome, type InvokeOutcome } from "./environment.mts";

export const REGION = "us-east-1";
export const ACCOUNT_ID = "123456789012";
/** Lambda caps INIT at 10 s (developer guide, "Lambda execution environment"). */
const INIT_TIMEOUT_MS = 10_000;

export interface FunctionConfiguration {
  FunctionName: string;
  FunctionArn: string;
  /** Absent for a function without one (a container image), as Lambda answers. */
  Runtime?: string;
  Handler: string;
  Description: string;
  MemorySize: number;
  Timeout: number;
  Environment?: { Variables: Record<string, string> };
  TracingConfig: { Mode: "Active" | "PassThrough" };
  Architectures: string[];
  /** $LATEST, or the published version ("1") that the alias points to. */
  Version: string;
  State: "Active";
  LastUpdateStatus: "InProgress" | "Successful" | "Failed";
  LastModified: string;
  RevisionId: string;
  CodeSize: number;
}

/** An alias's provisioned concurrency as GetProvisionedConcurrencyConfig answers it (READY or FAILED: the lab provisions before it serves). */
export interface ProvisionedConcurrencyConfig {
  RequestedProvisionedConcurrentExecutions: number;
  AvailableProvisionedConcurrentExecutions: number;
  AllocatedProvisionedConcurrentExecutions: number;
  Status: "READY" | "FAILED";
  /** Why it FAILED: the runtime's error type and message. */
  StatusReason?: string;
  LastModified: string;
}

export interface InvokeResult {
  payload: Buffer;
  /** "Unhandled" when the function failed (X-Amz-Function-Error). */
  functionError?: "Unhandled";
  /** The invocation's log lines: the platform's and the function's (the API's LogType Tail sends the last 4 KB). */
  log: string[];
  /** The version that ran it ($LATEST or 1): X-Amz-Executed-Version. */
  executedVersion: string;
}

/** A function as the lab serves it: its template settings, what runs it, and a custom runtime's opt dir. */
export interface ServedFunction extends TemplateFunction {
  runsOn: Runtime;
  optDir?: string;
  /** Its Environment.Variables, evaluated against the resources the lab created. */
  variables?: Record<string, string>;
}

/** The local AWS as the service uses it: where functions send their calls, and what each environment called. */
export interface LabServices extends LocalServices {
  calls(accessKeyId: string): Promise<AwsCall[]>;
  /** Tells `listener` of each call the local AWS could not answer (LocalAws.onNotServed). */
  onNotServed?(listener: (call: AwsCall) => void): void;
}

/** The version SAM's AutoPublishAlias publishes at the first deploy, and the one its alias points to. */
const PUBLISHED_VERSION = "1";

/** One version of a function ($LATEST or the published one): its configuration and its environments. */
class FunctionVersion {
  readonly idle: ExecutionEnvironment[] = [];
  readonly busy = new Set<ExecutionEnvironment>();
  config: FunctionConfiguration;
  /** Environments started before the last configuration change are not reused. */
  private readonly generations = new WeakMap<ExecutionEnvironment, number>();
  generation = 0;
  /** The sandbox of its next cold start, made ready at a configuration update (ExecutionEnvironment.stage). */
  staged: ExecutionEnvironment | null = null;

  constructor(config: FunctionConfiguration) {
    this.config = config;
  }

  track(env: ExecutionEnvironment): void {
    this.generations.set(env, this.generation);
  }

  isCurrent(env: ExecutionEnvironment): boolean {
    return this.generations.get(env) === this.generation;
  }
}

class LambdaFunction {
  /** $LATEST: what UpdateFunctionConfiguration changes, and what an unqualified invoke runs. */
  readonly latest: FunctionVersion;
  /** With AutoPublishAlias: version 1 as deployed (an update of $LATEST leaves it as it is), which the alias points to. */
  readonly published: FunctionVersion | null;

  readonly spec: ServedFunction;
  /** How its provisioned concurrency went (null: it has none, or it has not been provisioned yet). */
  provisioning: { status: ProvisionedConcurrencyConfig["Status"]; reason?: string; lastModified: string } | null = null;

  constructor(spec: ServedFunction) {
    this.spec = spec;
    const config: FunctionConfiguration = {
      FunctionName: spec.logicalId,
      FunctionArn: `arn:aws:lambda:${REGION}:${ACCOUNT_ID}:function:${spec.logicalId}`,
      Runtime: spec.runtime,
      Handler: spec.handler,
      Description: "",
      MemorySize: spec.memoryMb,
      Timeout: spec.timeoutSeconds,
      TracingConfig: { Mode: spec.tracing ? "Active" : "PassThrough" },
      Architectures: [spec.architecture],
      Version: "$LATEST",
      State: "Active",
      LastUpdateStatus: "Successful",
      LastModified: new Date().toISOString(),
      RevisionId: randomUUID(),
      CodeSize: 0,
      ...(spec.variables && Object.keys(spec.variables).length ? { Environment: { Variables: spec.variables } } : {}),
    };
    this.latest = new FunctionVersion(config);
    this.published = spec.alias ? new FunctionVersion({ ...config, Version: PUBLISHED_VERSION }) : null;
  }

  get versions(): FunctionVersion[] {
    return this.published ? [this.latest, this.published] : [this.latest];
  }
}

/** What a function name (or ARN) and Qualifier name: the function, the version that runs, and whether through its alias. */
interface QualifiedFunction {
  fn: LambdaFunction;
  version: FunctionVersion;
  /** The qualifier as named (null: none, $LATEST). */
  qualifier: string | null;
  viaAlias: boolean;
}

export class ResourceNotFound extends Error {}
/** The alias has no provisioned concurrency config: Lambda's ProvisionedConcurrencyConfigNotFoundException. */
export class ProvisionedConcurrencyConfigNotFound extends Error {}
export class ResourceConflict extends Error {}
export class InvalidParameterValue extends Error {}
/** The concurrency limit is reached: Lambda's TooManyRequestsException (ConcurrentInvocationLimitExceeded). */
export class TooManyRequests extends Error {}

export interface LambdaServiceOptions {
  /** Environments running or initializing at once, over all functions (Lambda's account concurrency). */
  concurrencyLimit?: number;
  /** An on-demand environment idle this long is reclaimed (Lambda does not document its own). */
  idleTimeoutMs?: number;
  /** How long INIT may take (default Lambda's 10 s). */
  initTimeoutMs?: number;
  /** Freeze idle environments (SIGSTOP) as Lambda does; default on. */
  freeze?: boolean;
  /** Where a new environment's code comes from (lab/fidelity.mts); default none: wherever it is. */
  codeLoading?: CodeLoading;
  /** Receives every line functions print, with the function's name. */
  onLine?: (functionName: string, line: string) => void;
  /** Functions of the template it does not serve, and why: an invoke of one says so. */
  refused?: ReadonlyMap<string, string>;
}

const DEFAULT_CONCURRENCY_LIMIT = 50;
const DEFAULT_IDLE_TIMEOUT_MS = 10 * 60_000;

export class LambdaService {
  private readonly functions = new Map<string, LambdaFunction>();
  private readonly services: LabServices;
  private readonly options: Required<Omit<LambdaServiceOptions, "onLine">> & Pick<LambdaServiceOptions, "onLine">;
  /** Environments initializing or running an invocation, over all functions. */
  private active = 0;
  private readonly provisioned = new WeakSet<ExecutionEnvironment>();
  private readonly reclaimTimers = new WeakMap<ExecutionEnvironment, NodeJS.Timeout>();
  /** Every environment started and not yet discarded, whatever it is doing. */
  private readonly live = new Set<ExecutionEnvironment>();
  private closed = false;

  constructor(functions: ServedFunction[], services: LabServices, options: LambdaServiceOptions = {}) {
    this.services = services;
    this.options = {
      concurrencyLimit: options.concurrencyLimit ?? DEFAULT_CONCURRENCY_LIMIT,
      idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
      initTimeoutMs: options.initTimeoutMs ?? INIT_TIMEOUT_MS,
      freeze: options.freeze ?? true,
      codeLoading: options.codeLoading ?? "none",
      onLine: options.onLine,
      refused: options.refused ?? new Map(),
    };
    for (const spec of functions) this.functions.set(spec.logicalId, new LambdaFunction(spec));
    // Said in the log of the environment that made the call, whether or not its handler lets the error out.
    services.onNotServed?.((call) => {
      for (const env of this.live) if (env.accessKeyId === call.accessKeyId) env.note(`[warpstart lab] ${call.errorMessage}`);
    });
  }

  /**
   * Environments of a function: idle ones (frozen or not), busy ones, provisioned ones; of every
   * version, or of the one a qualifier names ($LATEST, the alias or 1: the alias's are version 1's).
   */
  environments(name: string, qualifier?: string): { idle: number; busy: number; provisioned: number; frozen: number; staged: number } {
    const qualified = this.qualified(name, qualifier);
    const versions = qualifier === undefined && !qualifiedName(name) ? qualified.fn.versions : [qualified.version];
    const idle = versions.flatMap((version) => version.idle);
    const busy = versions.flatMap((version) => [...version.busy]);
    return {
      idle: idle.length,
      busy: busy.length,
      provisioned: [...idle, ...busy].filter((env) => this.provisioned.has(env)).length,
      frozen: idle.filter((env) => env.isFrozen).length,
      staged: versions.filter((version) => version.staged).length,
    };
  }

  /**
   * Initializes every function's provisioned concurrency (template ProvisionedConcurrencyConfig)
   * before traffic, with AWS_LAMBDA_INITIALIZATION_TYPE=provisioned-concurrency: on its alias, as
   * SAM configures it (a function without AutoPublishAlias has none; SAM refuses the template).
   * A function whose provisioned environments fail to initialize is that function's problem, as on
   * Lambda: its config is FAILED, with the runtime's error as its reason, and its alias runs on
   * demand. Resolves with each such function and that reason.
   */
  async provision(): Promise<Map<string, string>> {
    const failed = new Map<string, string>();
    const provisioned = [...this.functions.values()].filter((fn) => fn.published && fn.spec.provisionedConcurrency > 0);
    await Promise.all(
      provisioned.map(async (fn) => {
        const version = fn.published!;
        const envs = Array.from({ length: fn.spec.provisionedConcurrency }, () => this.newEnvironment(fn, version, "provisioned-concurrency"));
        const whyNot = await Promise.all(envs.map((env) => this.initProvisioned(env)));
        const reason = whyNot.find((why) => why !== null);
        fn.provisioning = { status: reason ? "FAILED" : "READY", reason: reason ?? undefined, lastModified: new Date().toISOString() };
        if (reason) {
          failed.set(fn.spec.logicalId, reason);
          await Promise.all(envs.map((env) => this.discard(env)));
          return;
        }
        for (const env of envs) this.provisioned.add(env);
        version.idle.push(...envs);
      }),
    );
    return failed;
  }

  /** INIT of a provisioned environment: null when it is ready, else the runtime's error type and message. */
  private async initProvisioned(env: ExecutionEnvironment): Promise<string | null> {
    try {
      const init = await env.init(this.options.initTimeoutMs);
      env.takeLog();
      if (init.kind === "ready") return null;
      const posted = parseJson(this.failedInit(init, [], []).payload);
      return `${posted.errorType}: ${posted.errorMessage}`;
    } catch (error) {
      return errorMessage(error);
    }
  }

  /**
   * The provisioned concurrency config of the alias a name and qualifier name, as
   * GetProvisionedConcurrencyConfig answers it; none on $LATEST, version 1 or a function without one.
   */
  provisionedConcurrencyConfig(name: string, qualifier?: string): ProvisionedConcurrencyConfig {
    const { fn, viaAlias } = this.qualified(name, qualifier);
    if (!viaAlias || !fn.provisioning) throw new ProvisionedConcurrencyConfigNotFound("No Provisioned Concurrency Config found for this function");
    const requested = fn.spec.provisionedConcurrency;
    const allocated = fn.provisioning.status === "READY" ? requested : 0;
    return {
      RequestedProvisionedConcurrentExecutions: requested,
      AvailableProvisionedConcurrentExecutions: allocated,
      AllocatedProvisionedConcurrentExecutions: allocated,
      Status: fn.provisioning.status,
      ...(fn.provisioning.reason ? { StatusReason: fn.provisioning.reason } : {}),
      LastModified: fn.provisioning.lastModified,
    };
  }

  /** A function's settings as the lab serves it (what runs it, its code). */
  served(name: string): ServedFunction {
    return this.qualified(name).fn.spec;
  }

  get functionNames(): string[] {
    return [...this.functions.keys()];
  }

  /** The configuration of the version a name (or ARN) and qualifier name; its FunctionArn qualified when a qualifier is named, as Lambda answers. */
  configuration(name: string, qualifier?: string): FunctionConfiguration {
    const qualified = this.qualified(name, qualifier);
    return { ...qualified.version.config, FunctionArn: invokedArn(qualified) };
  }

  /**
   * Applies a configuration change to $LATEST (the only version Lambda lets it change); $LATEST's
   * environments are discarded, so its next invoke is cold. The alias's keep running version 1,
   * which an update leaves as it is: they stay, provisioned ones included, as on Lambda.
   */
  async updateConfiguration(
    name: string,
    change: Partial<Pick<FunctionConfiguration, "Description" | "MemorySize" | "Timeout" | "Environment">>,
  ): Promise<FunctionConfiguration> {
    const { qualifier } = parseFunctionName(name);
    if (qualifier !== null && qualifier !== "$LATEST")
      throw new InvalidParameterValue(
        "Current operation does not support versions other than $LATEST. Please set the version to $LATEST or do not set a version in your request.",
      );
    const { fn } = this.qualified(name);
    const latest = fn.latest;
    if (latest.config.LastUpdateStatus === "InProgress")
      throw new ResourceConflict(`The operation cannot be performed at this time. An update is in progress for resource: ${latest.config.FunctionArn}`);
    if (change.MemorySize !== undefined && !(Number.isInteger(change.MemorySize) && change.MemorySize >= 128 && change.MemorySize <= 10240)) {
      throw new InvalidParameterValue("MemorySize must be an integer from 128 to 10240 (MB).");
    }
    if (change.Timeout !== undefined && !(Number.isInteger(change.Timeout) && change.Timeout >= 1 && change.Timeout <= 900)) {
      throw new InvalidParameterValue("Timeout must be an integer from 1 to 900 (seconds).");
    }
    latest.config = {
      ...latest.config,
      ...change,
      LastUpdateStatus: "InProgress",
      LastModified: new Date().toISOString(),
      RevisionId: randomUUID(),
    };
    latest.generation++;
    const response = { ...latest.config };
    // Busy environments are discarded when their invocation ends; idle ones now. The answer
    // says InProgress, as Lambda's does; by the waiter's first poll the update is Successful.
    await Promise.all([...latest.idle.splice(0), ...(latest.staged ? [latest.staged] : [])].map((env) => this.discard(env)));
    // While the update is InProgress, the next cold start's sandbox is made: the lab's own work
    // (copying the code, dropping it from the page cache) then stays out of that invoke's E2E.
    latest.staged = this.newEnvironment(fn, latest, "on-demand");
    await latest.staged.stage().catch(async () => {
      // The invoke stages it again and fails there, with its own error.
      await this.discard(latest.staged!);
      latest.staged = null;
    });
    latest.config = { ...latest.config, LastUpdateStatus: "Successful" };
    return response;
  }

  /**
   * Invokes the version a name (or ARN) and qualifier name: $LATEST (no qualifier) on on-demand
   * environments; the alias on its provisioned environments first, then on-demand ones of version
   * 1; version 1 itself on those on-demand ones only (provisioned concurrency serves the alias).
   */
  async invoke(name: string, payload: Buffer, qualifier?: string): Promise<InvokeResult> {
    const qualified = this.qualified(name, qualifier);
    const { fn, version } = qualified;
    if (this.active >= this.options.concurrencyLimit) {
      throw new TooManyRequests(`Rate Exceeded. (the lab's concurrency limit is ${this.options.concurrencyLimit})`);
    }
    const log: string[] = [];
    // An idle environment whose process died is no longer in the pool (newEnvironment): this
    // invoke starts a new one.
    let env = this.takeIdle(version, qualified.viaAlias);
    let initDurationMs: number | undefined;
    this.active++;
    try {
      if (env) {
        clearTimeout(this.reclaimTimers.get(env));
      } else {
        env = this.takeStaged(version) ?? this.newEnvironment(fn, version, "on-demand");
        log.push(initStartLine(version.config.FunctionArn, fn.spec.runsOn));
        const init = await env.init(this.options.initTimeoutMs);
        log.push(...env.takeLog());
        if (init.kind !== "ready") {
          await this.discard(env);
          return { ...this.failedInit(init, log, await this.services.calls(env.accessKeyId)), executedVersion: version.config.Version };
        }
        initDurationMs = init.initDurationMs;
      }
      return await this.run(qualified, env, payload, log, initDurationMs);
    } finally {
      this.active--;
    }
  }

  /** The version's staged sandbox, if it was made for its current configuration; taken once. */
  private takeStaged(version: FunctionVersion): ExecutionEnvironment | undefined {
    const staged = version.staged;
    version.staged = null;
    if (staged && version.isCurrent(staged) && staged.staged) return staged;
    if (staged) void this.discard(staged);
    return undefined;
  }

  /** An idle environment of the version, the last one released first: through the alias a provisioned one if any is idle; otherwise an on-demand one. */
  private takeIdle(version: FunctionVersion, viaAlias: boolean): ExecutionEnvironment | undefined {
    let index = viaAlias ? version.idle.findLastIndex((env) => this.provisioned.has(env)) : -1;
    if (index < 0) index = version.idle.findLastIndex((env) => !this.provisioned.has(env));
    return index < 0 ? undefined : version.idle.splice(index, 1)[0];
  }

  private newEnvironment(fn: LambdaFunction, version: FunctionVersion, initializationType: "on-demand" | "provisioned-concurrency"): ExecutionEnvironment {
    if (this.closed) throw new Error("the lab is stopping: it starts no new environment");
    const env = new ExecutionEnvironment({
      spec: {
        name: fn.spec.logicalId,
        codeDir: fn.spec.codeDir,
        handler: version.config.Handler,
        memoryMb: version.config.MemorySize,
        runtime: fn.spec.runsOn,
        optDir: fn.spec.optDir,
      },
      services: this.services,
      variables: version.config.Environment?.Variables,
      version: version.config.Version,
      initializationType,
      onLine: this.options.onLine && ((line) => this.options.onLine!(fn.spec.logicalId, line)),
      freezeWhenIdle: this.options.freeze,
      codeLoading: this.options.codeLoading,
    });
    version.track(env);
    this.live.add(env);
    // An idle environment whose process ends (killed from outside, out of memory) is dropped when
    // it does, so the next invoke gets a new one, as Lambda replaces an environment that fails; the
    // runtime interface emulator would hand it the next invoke instead, to fail with its exit. A
    // busy one's invoke sees the exit itself (run).
    void env.exited.then(() => this.reclaim(version, env));
    return env;
  }

  /** Back to the idle pool, reclaimed after the idle timeout unless it is provisioned. */
  private release(version: FunctionVersion, env: ExecutionEnvironment): void {
    version.idle.push(env);
    if (this.provisioned.has(env)) return;
    const timer = setTimeout(() => void this.reclaim(version, env), this.options.idleTimeoutMs);
    timer.unref();
    this.reclaimTimers.set(env, timer);
  }

  /** Ends a function's idle on-demand environments (of every version) now, as the idle timeout would later. */
  async reclaimIdle(name: string): Promise<void> {
    const { fn } = this.qualified(name);
    await Promise.all(fn.versions.flatMap((version) => version.idle.filter((env) => !this.provisioned.has(env)).map((env) => this.reclaim(version, env))));
  }

  private async reclaim(version: FunctionVersion, env: ExecutionEnvironment): Promise<void> {
    clearTimeout(this.reclaimTimers.get(env));
    const index = version.idle.indexOf(env);
    if (index >= 0) await this.discard(version.idle.splice(index, 1)[0]!);
  }

  private async run(
    qualified: QualifiedFunction,
    env: ExecutionEnvironment,
    payload: Buffer,
    log: string[],
    initDurationMs: number | undefined,
  ): Promise<InvokeResult> {
    const { version } = qualified;
    const config = version.config;
    version.busy.add(env);
    const requestId = randomUUID();
    const timeoutMs = config.Timeout * 1000;
    log.push(startLine(requestId));
    const started = performance.now();
    const outcome = await env.invoke(
      {
        requestId,
        payload,
        deadlineMs: Date.now() + timeoutMs,
        // The ARN it was invoked by, qualifier and all (the context's invokedFunctionArn).
        functionArn: invokedArn(qualified),
        // Active tracing samples every invoke here (X-Ray's default rule samples the first each second).
        traceId: `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString("hex")};Parent=${randomBytes(8).toString("hex")};Sampled=${config.TracingConfig.Mode === "Active" ? 1 : 0}`,
      },
      timeoutMs,
    );
    const durationMs = performance.now() - started;
    version.busy.delete(env);
    log.push(...env.takeLog(), endLine(requestId));
    log.push(
      reportLine({
        requestId,
        durationMs,
        memorySizeMb: config.MemorySize,
        maxMemoryUsedMb: env.maxMemoryUsedMb(),
        initDurationMs,
        status: outcome.kind === "timeout" ? "timeout" : outcome.kind === "exit" ? "error" : undefined,
      }),
    );

    const result = { ...this.invokeResult(outcome, requestId, config, log), executedVersion: config.Version };
    if ((outcome.kind === "response" || outcome.kind === "error") && version.isCurrent(env) && env.alive) {
      this.release(version, env);
    } else {
      this.provisioned.delete(env);
      await this.discard(env); // a crash, a timeout or a configuration change ends the environment
    }
    return result;
  }

  /** Ends every environment: idle, busy, and those still initializing. */
  async close(): Promise<void> {
    this.closed = true;
    for (const fn of this.functions.values())
      for (const version of fn.versions) {
        version.idle.splice(0);
        version.staged = null;
      }
    await Promise.all([...this.live].map((env) => this.discard(env)));
  }

  private async discard(env: ExecutionEnvironment): Promise<void> {
    this.live.delete(env);
    await env.kill();
  }

  /**
   * The function and version a name (a name, a full or partial ARN, name:qualifier) and a Qualifier
   * name: $LATEST (or none), the function's alias (AutoPublishAlias) or the version it published
   * (1). Anything else is Lambda's ResourceNotFoundException, with the qualifier in the ARN.
   */
  private qualified(name: string, qualifier?: string): QualifiedFunction {
    const parsed = parseFunctionName(name);
    if (parsed.qualifier !== null && qualifier && parsed.qualifier !== qualifier)
      throw new InvalidParameterValue("The derived qualifier from the function name does not match the specified qualifier.");
    const named = parsed.qualifier ?? (qualifier || null);
    const fn = this.functions.get(parsed.name);
    const notFound = (note = "") =>
      new ResourceNotFound(`Function not found: arn:aws:lambda:${REGION}:${ACCOUNT_ID}:function:${parsed.name}${named === null ? "" : `:${named}`}${note}`);
    if (!fn) {
      const refused = this.options.refused.get(parsed.name);
      throw notFound(refused ? ` (the lab does not serve it: ${refused})` : "");
    }
    if (named === null || named === "$LATEST") return { fn, version: fn.latest, qualifier: named, viaAlias: false };
    if (fn.published && named === fn.spec.alias) return { fn, version: fn.published, qualifier: named, viaAlias: true };
    if (fn.published && named === PUBLISHED_VERSION) return { fn, version: fn.published, qualifier: named, viaAlias: false };
    throw notFound();
  }

  private failedInit(init: Exclude<InitOutcome, { kind: "ready" }>, log: string[], calls: AwsCall[]): Omit<InvokeResult, "executedVersion"> {
    let errorType: string;
    let body: Record<string, unknown>;
    if (init.kind === "init-error") {
      // The runtime's own report; a type it did not (validly) name becomes Runtime.InitError, and
      // the error's own type (e.g. the SDK's ParameterNotFound) leads its message.
      errorType = init.error.errorType ?? "Runtime.InitError";
      const posted = parseJson(init.error.body);
      const message = String(posted.errorMessage ?? "the runtime reported an init error");
      const ownType = typeof posted.errorType === "string" && posted.errorType !== errorType ? posted.errorType : null;
      body = { ...posted, errorType, errorMessage: ownType && !message.startsWith(ownType) ? `${ownType}: ${message}` : message };
    } else if (init.kind === "exit") {
      errorType = "Runtime.ExitError";
      body = { errorType, errorMessage: `Runtime exited with error: ${exitText(init.exit)}` };
    } else {
      errorType = "Sandbox.Timedout";
      body = { errorType, errorMessage: `Task timed out after ${(this.options.initTimeoutMs / 1000).toFixed(2)} seconds (INIT)` };
    }
    log.push(initReportLine(init.initDurationMs, init.kind === "timeout" ? "timeout" : "error", errorType));
    // A call the local AWS does not serve has its own line already (the constructor's).
    const failed = calls.filter((call) => call.status >= 400).at(-1);
    if (failed && failed.errorCode !== NOT_SERVED) log.push(failedCallLine(failed));
    return { payload: Buffer.from(JSON.stringify(body)), functionError: "Unhandled", log };
  }

  private invokeResult(outcome: InvokeOutcome, requestId: string, config: FunctionConfiguration, log: string[]): Omit<InvokeResult, "executedVersion"> {
    switch (outcome.kind) {
      case "response":
        return { payload: outcome.body, log };
      case "error":
        return { payload: outcome.body, functionError: "Unhandled", log };
      case "exit":
        return {
          payload: Buffer.from(
            JSON.stringify({
              errorType: "Runtime.ExitError",
              errorMessage: `RequestId: ${requestId} Error: Runtime exited with error: ${exitText(outcome.exit)}`,
            }),
          ),
          functionError: "Unhandled",
          log,
        };
      case "timeout":
        return {
          payload: Buffer.from(
            JSON.stringify({
              errorType: "Sandbox.Timedout",
              errorMessage: `RequestId: ${requestId} Error: Task timed out after ${config.Timeout.toFixed(2)} seconds`,
            }),
          ),
          functionError: "Unhandled",
          log,
        };
    }
  }
}

/** A function name, a full or partial ARN, or name:qualifier -> the name and the qualifier it ends with (null: none). */
function parseFunctionName(identifier: string): { name: string; qualifier: string | null } {
  const arn = /^(?:arn:aws[\w-]*:lambda:[\w-]+:\d{12}:function:|\d{12}:function:)?([^:]+)(?::([^:]+))?$/.exec(identifier);
  return arn ? { name: arn[1]!, qualifier: arn[2] ?? null } : { name: identifier, qualifier: null };
}

const qualifiedName = (identifier: string) => parseFunctionName(identifier).qualifier !== null;

/** The ARN a qualified function was named by: the function's, with the qualifier if one was named. */
function invokedArn({ version, qualifier }: Pick<QualifiedFunction, "version" | "qualifier">): string {
  const arn = `arn:aws:lambda:${REGION}:${ACCOUNT_ID}:function:${version.config.FunctionName}`;
  return qualifier === null ? arn : `${arn}:${qualifier}`;
}

function exitText(exit: { code: number | null; signal: string | null }): string {
  return exit.signal ? `signal: ${exit.signal}` : `exit status ${exit.code}`;
}

function parseJson(body: Buffer): Record<string, unknown> {
  try {
    const value = JSON.parse(body.toString("utf8"));
    return value && typeof value === "object" ? value : { errorMessage: String(value) };
  } catch {
    return { errorMessage: body.toString("utf8") };
  }
}

/**
 * Not a line Lambda writes: the lab's note, after a failed INIT, of the AWS call that failed
 * (the local AWS holds only the template's resources, so this is usually one it does not declare).
 */
function failedCallLine(call: Pick<AwsCall, "service" | "operation" | "status" | "errorCode" | "errorMessage">): string {
  const error = [call.errorCode, call.errorMessage].filter(Boolean).join(": ");
  return `[warpstart lab] INIT's call ${call.service ?? "(unsigned)"} ${call.operation} answered ${call.status}${error ? ` ${error}` : ""}. The lab's local AWS holds only the template's resources: declare what INIT reads in the template.`;
}
