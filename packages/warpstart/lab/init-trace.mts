// One traced cold start of a served function: a new execution environment, as the lab starts
// one, with lab/init-trace-preload.mjs preloaded, then its first invoke. What INIT spent its time on
// (before the handler, loading its code, its top-level work, after it), the builtins the
// handler's import loaded and the AWS calls INIT made; a failed INIT or first invoke is a
// ColdStartFailure that says which of the two failed and the runtime's error.
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { eventOrigin, functionEvent } from "../emulation/events.mts";
import { refusedHostsIn, servicesOf } from "../emulation/function-environment.mts";
import { CACHE_REJECTED } from "../src/contract.mts";
import { ExecutionEnvironment, type InitOutcome, type InvokeOutcome } from "./emulator/environment.mts";
import type { ServedFunction } from "./emulator/lambda-service.mts";
import type { Lab } from "./lab.mts";

const TRACE_PRELOAD = pathToFileURL(join(import.meta.dirname, "init-trace-preload.mjs")).href;
/** Lambda caps INIT at 10 s (developer guide, "Lambda execution environment"). */
const INIT_TIMEOUT_MS = 10_000;
/** How many of the last log lines a ColdStartFailure quotes when the runtime logged no error of its own. */
const LOG_LINES_QUOTED = 5;

/** Builtins a cold start should not load during INIT unless it needs them: each costs milliseconds to load. */
export const HEAVY_BUILTINS: readonly string[] = ["node:http2", "undici", "node:zlib", "web streams", "webcrypto", "node:worker_threads", "node:fs/promises"];

export interface InitTrace {
  /** Init Duration as the lab reports it. */
  initMs: number;
  /**
   * INIT split (ms): process start + runtime client until the handler's import starts; the
   * handler's import until its first AWS request (or until the import ends when INIT makes none)
   * = "loading the code"; from the first AWS request until the import resolves (top-level await
   * included) = "top-level work"; the rest until the runtime asks for the first event. Null on a
   * Node without the tracing channels of module loading (before 22): its cold start is not split.
   */
  phases: { beforeHandlerMs: number; loadingCodeMs: number; topLevelWorkMs: number; afterHandlerMs: number } | null;
  /** Builtin modules (public names, e.g. "node:http2", "node:zlib", "undici", "web streams", "webcrypto") first loaded while the handler's import ran, in load order (none where not split). */
  builtins: string[];
  /** The AWS calls made during INIT, as the local AWS recorded them: when it received each (ms from the INIT start), how long it took (ms), its status. */
  awsCalls: { service: string; operation: string; startMs: number; ms: number; status: number }[];
  /** Whether Warp's chunk loader logged that its code cache was rejected (by V8, or as another build's). */
  codeCacheRejected: boolean;
}

/** INIT ("init") or, INIT done, the first invoke ("invoke") failed; the message carries the runtime's error as the log shows it. */
export class ColdStartFailure extends Error {
  override name = "ColdStartFailure";
  readonly phase: "init" | "invoke";
  constructor(message: string, phase: "init" | "invoke") {
    super(message);
    this.phase = phase;
  }
}

/** The hosts beyond this machine the lab refused the function (its outbound guard's log lines), said after the error they caused. */
function refusedHosts(log: string[]): string {
  const hosts = refusedHostsIn(log.join("\n"));
  if (hosts.length === 0) return "";
  return ` (the lab refused its connection to ${hosts.join(" and ")}: it reaches nothing beyond this machine but its local AWS; on Lambda the function reaches ${hosts.length === 1 ? "it" : "them"})`;
}

/** The oldest Node with the tracing channels of module loading (module.import, module.require) the preload subscribes to (Node 18 lacks even process.getBuiltinModule, which it uses). */
const TRACED_NODE_MAJOR = 22;

export interface TraceOptions {
  /** How long INIT may take (default: Lambda's 10 s). */
  initTimeoutMs?: number;
}

/** Starts one new execution environment for `fn` with the trace preloaded, invokes it once with its event and ends it. */
export async function traceColdStart(lab: Lab, fn: ServedFunction, options: TraceOptions = {}): Promise<InitTrace> {
  if (fn.runsOn.kind !== "managed")
    throw new Error(`${fn.logicalId} runs on ${fn.runsOn.name}: only a managed Node runtime reads the trace's preload from NODE_OPTIONS`);
  // Where the preload cannot split INIT, the cold start still says whether INIT and the first invoke ran, and what INIT called.
  const split = fn.runsOn.nodeMajor >= TRACED_NODE_MAJOR;
  const event = functionEvent(fn); // before anything starts: a trigger with no event fails here
  const scratch = mkdtempSync(join(tmpdir(), "warpstart-init-trace-"));
  const traceFile = join(scratch, "trace");
  // The function's own NODE_OPTIONS stay: they are part of its cold start.
  const nodeOptions = [fn.variables?.NODE_OPTIONS, split && `--import=${TRACE_PRELOAD}`].filter(Boolean).join(" ");
  const env = new ExecutionEnvironment({
    spec: { name: fn.logicalId, codeDir: fn.codeDir, handler: fn.handler, memoryMb: fn.memoryMb, runtime: fn.runsOn, optDir: fn.optDir },
    services: servicesOf(lab.aws),
    variables: { ...fn.variables, NODE_OPTIONS: nodeOptions, WARPSTART_INIT_TRACE: traceFile },
    initializationType: "on-demand",
    codeLoading: lab.fidelity.codeLoading,
  });
  const log: string[] = [];
  try {
    const init = await env.init(options.initTimeoutMs ?? INIT_TIMEOUT_MS);
    // The local AWS stamps calls with the wall clock: where INIT began on it, both clocks read at once.
    const initStartEpochMs = Date.now() - Number(process.hrtime.bigint() - env.spawnedAt!) / 1e6;
    log.push(...env.takeLog());
    if (init.kind !== "ready") throw new ColdStartFailure(`${fn.logicalId}: INIT failed (${ending(init)}): ${runtimeError(log)}${refusedHosts(log)}`, "init");
    const calls = await lab.aws.calls(env.accessKeyId);
    const timeoutMs = fn.timeoutSeconds * 1000;
    const outcome = await env.invoke(
      {
        requestId: randomUUID(),
        payload: Buffer.from(JSON.stringify(event)),
        deadlineMs: Date.now() + timeoutMs,
        functionArn: fn.logicalId,
        traceId: "",
      },
      timeoutMs,
    );
    log.push(...env.takeLog());
    if (outcome.kind !== "response")
      throw new ColdStartFailure(
        `${fn.logicalId}: the first invoke, given ${eventOrigin(fn)}, failed (${ending(outcome)}): ${runtimeError(log)}${refusedHosts(log)}`,
        "invoke",
      );
    return {
      initMs: init.initDurationMs,
      // The preload writes nothing before the handler's import starts.
      ...(split
        ? parseInitTrace(existsSync(traceFile) ? readFileSync(traceFile, "utf8") : "", { spawnedAt: env.spawnedAt!, readyAt: env.readyAt! })
        : { phases: null, builtins: [] }),
      awsCalls: calls.map((call) => ({
        // Calls are found by the environment's access key, so each was signed and names its service.
        service: call.service!,
        operation: call.operation,
        startMs: call.startedAt * 1000 - initStartEpochMs,
        ms: call.ms,
        status: call.status,
      })),
      codeCacheRejected: log.some((line) => line.includes(CACHE_REJECTED)),
    };
  } finally {
    await env.kill();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * INIT's phases and the handler's builtins from the preload's output (lab/init-trace-preload.mjs) and
 * the environment's spawnedAt and readyAt (process.hrtime.bigint, as the marks).
 */
export function parseInitTrace(
  output: string,
  { spawnedAt, readyAt }: { spawnedAt: bigint; readyAt: bigint },
): { phases: NonNullable<InitTrace["phases"]>; builtins: string[] } {
  const marks = new Map<string, bigint>();
  const loaded: string[] = [];
  for (const line of output.split("\n").filter(Boolean)) {
    const space = line.indexOf(" ");
    const [key, value] = [line.slice(0, space), line.slice(space + 1)];
    if (key === "loaded") loaded.push(value);
    else marks.set(key, BigInt(value));
  }
  const handlerStart = marks.get("handler-start");
  const handlerEnd = marks.get("handler-end");
  if (handlerStart === undefined || handlerEnd === undefined)
    throw new Error("the trace saw no import of the handler (a module under LAMBDA_TASK_ROOT) start and end");
  const awsRequest = marks.get("aws-request") ?? handlerEnd;
  const ms = (from: bigint, to: bigint) => Number(to - from) / 1e6;
  return {
    phases: {
      beforeHandlerMs: ms(spawnedAt, handlerStart),
      loadingCodeMs: ms(handlerStart, awsRequest),
      topLevelWorkMs: ms(awsRequest, handlerEnd),
      afterHandlerMs: ms(handlerEnd, readyAt),
    },
    builtins: [...new Set(loaded.map(publicName).filter((name) => name !== null))],
  };
}

/** Internal modules that stand for a public feature, by the prefix of their id. */
const FEATURE_INTERNALS: [prefix: string, name: string][] = [
  ["internal/deps/undici/", "undici"],
  ["internal/webstreams/", "web streams"],
  ["internal/crypto/webcrypto", "webcrypto"],
];

/** The public name of a process.moduleLoadList entry ("NativeModule zlib" is node:zlib), or null for what a user never names. */
function publicName(entry: string): string | null {
  const id = /^NativeModule (.+)$/.exec(entry)?.[1];
  if (id === undefined) return null; // an internal binding
  const feature = FEATURE_INTERNALS.find(([prefix]) => id.startsWith(prefix));
  if (feature) return feature[1];
  // Other internals, and the underscored parts of public modules (_http_client, _tls_wrap), come with a public module.
  if (id.startsWith("internal/") || id.startsWith("_")) return null;
  return `node:${id}`;
}

/** How a failed INIT or invoke ended: the runtime's error report, a timeout, or the process's exit and its status. */
function ending(outcome: InitOutcome | InvokeOutcome): string {
  return outcome.kind === "exit" ? `exit, ${outcome.exit.signal ?? `status ${outcome.exit.code}`}` : outcome.kind;
}

/** The runtime's error as the log shows it: the error type and message it logged, else the last lines. */
function runtimeError(log: string[]): string {
  for (const line of log.toReversed()) {
    const json = line.slice(line.indexOf("{"));
    try {
      const { errorType, errorMessage } = JSON.parse(json) as { errorType?: unknown; errorMessage?: unknown };
      if (typeof errorType === "string" && typeof errorMessage === "string") return `${errorType}: ${errorMessage}`;
    } catch {
      // not JSON: an ordinary log line
    }
  }
  return log.slice(-LOG_LINES_QUOTED).join(" | ") || "the runtime logged nothing";
}
