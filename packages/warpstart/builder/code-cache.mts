// Warp's post-INIT V8 code cache: run one full INIT of the built artifact on the pinned Node of the
// function's runtime with the node flags that runtime uses for the function's memory size, against
// a local AWS that holds the template's resources (core/init-services.mts), then save V8's code
// cache of the chunk (the SDK and the packages the handler imports), which by then holds every
// function INIT compiled of it (under qemu, in a Worker of the toolchain's long-lived Node that a
// whole `sam build` shares: init-server.mts). A second INIT, in a Node of its own, checks that V8
// accepts it (under qemu, once per Node and flags: toolchainOf). Nothing here reaches real AWS: every client's endpoint is the local
// one. An INIT that connects beyond AWS is refused (nothing a build runs leaves the machine); with
// BuildProperties.WarpPartialInit the cache holds what INIT compiled before that connection.
// The NodeCompileCache peer's cache (Node's own module compile cache) is made by the same INIT,
// at the end of this file.
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { THROWN_LINE, thrownIn } from "../core/errors.mts";
import type { AwsCall, InitServices, OpenInitServices } from "../core/init-services.mts";
import { buildDirOf, LOCAL_AWS_CA_FILE, labHomeDir } from "../core/paths.mts";
import { execOwned, ownedDir, removeTree } from "../core/processes.mts";
import { type ManagedRuntime, nodeArch, nodeFor } from "../core/runtimes.mts";
import type { SamTemplate, TemplateFunction } from "../core/template.mts";
import { readEnvVars } from "../emulation/env-vars.mts";
import { functionEvent } from "../emulation/events.mts";
import {
  accessKeyFor,
  bootstrapCommand,
  type FunctionVariables,
  functionEnvironment,
  LAB_RUN_DIR,
  labOverlayOf,
  prepareLayersDir,
  prepareTaskRoot,
  refusedHostsIn,
  removeTaskRoot,
  templateVariables,
} from "../emulation/function-environment.mts";
import type { CacheHeader } from "../src/contract.mts";
import { initInServer, startInitServerAhead } from "./init-server.mts";
import { builtLayer } from "./layer-packages.mts";

const CHILD = join(import.meta.dirname, "code-cache-child.mjs");

/** What to declare in the template for a service INIT called. */
const DECLARE: Record<string, string> = {
  ssm: "an AWS::SSM::Parameter",
  secretsmanager: "an AWS::SecretsManager::Secret",
  dynamodb: "an AWS::DynamoDB::Table or AWS::Serverless::SimpleTable",
  s3: "an AWS::S3::Bucket",
  logs: "an AWS::Logs::LogGroup",
};

export class CodeCacheError extends Error {
  override name = "CodeCacheError";
}

/** Why a build-time INIT for `maker`'s cache (Warp, NodeCompileCache) failed, in the words of the call that failed (if one did) and what to do about it. */
function initFailure(
  maker: string,
  fn: Pick<TemplateFunction, "logicalId">,
  templateFile: string,
  output: string,
  services: InitServices,
  calls: AwsCall[],
): string {
  const failed = calls.filter((call) => call.status >= 400);
  const last = failed.at(-1);
  const refused = refusedHostsIn(output);
  const lines = refused.length
    ? [
        `${maker} cannot build ${fn.logicalId}'s V8 code cache: its INIT tried to connect to ${refused.join(" and ")}, ${refused.every((host) => /\.amazonaws\.com(:\d+)?$/.test(host)) ? "an AWS endpoint it reaches without an SDK client (the local AWS stands in for the SDK's calls only)" : `which ${refused.length === 1 ? "is" : "are"} not AWS`}, and nothing a build runs may leave this machine. Set ${PARTIAL_INIT}: true in its Metadata.BuildProperties to cache what INIT compiles before that connection, build ${fn.logicalId} with the Optimized profile, or make that connection in the handler instead of during INIT.`,
      ]
    : [
        `${maker} builds ${fn.logicalId}'s V8 code cache by running its INIT, against a local AWS that holds only ${templateFile}'s resources, and that INIT failed.`,
      ];
  if (!refused.length && last) {
    lines.push(
      `The call that failed: ${last.service ?? "an unknown service"} ${last.operation} answered ${last.status} ${last.errorCode ?? ""}${last.errorMessage ? `: ${last.errorMessage}` : ""}.`,
    );
    const declare = last.service ? DECLARE[last.service] : undefined;
    lines.push(
      declare
        ? `Declare what INIT reads in the template (${declare}, with the name the function uses), or build ${fn.logicalId} with another profile.`
        : `The lab creates ${services.holds}; INIT that needs anything else cannot run at build time: build ${fn.logicalId} with the Optimized profile.`,
    );
  }
  lines.push(`${INIT_OUTPUT}\n${initOutputExcerpt(output)}`);
  return lines.join("\n");
}

/**
 * 15 lines of INIT's output for a message: from just above the last error it names (Node prints
 * the source line above it, and its stack and properties below, often more than 15 lines), else
 * its last 15.
 */
export function initOutputExcerpt(output: string): string {
  const lines = output.trim().split("\n");
  const at = lines.findLastIndex((line) => THROWN_LINE.test(line));
  const from = at < 0 ? Math.max(0, lines.length - 15) : Math.max(0, at - 4);
  return lines.slice(from, from + 15).join("\n");
}

/** The build property that lets a cache hold what INIT compiled before a connection beyond AWS (its value: true). */
const PARTIAL_INIT = "WarpPartialInit";

/** Whether the function's code cache may come from a partial INIT (BuildProperties.WarpPartialInit, default false). */
export function acceptsPartialInit(fn: Pick<TemplateFunction, "logicalId" | "buildProperties">): boolean {
  const value = fn.buildProperties[PARTIAL_INIT] ?? false;
  if (typeof value !== "boolean")
    throw new CodeCacheError(`${fn.logicalId}: Metadata.BuildProperties.${PARTIAL_INIT} must be true or false, not ${JSON.stringify(value)}`);
  return value;
}

export interface CachedArtifact {
  template: SamTemplate;
  fn: TemplateFunction;
  /** The managed runtime it deploys to, whose Node makes the cache: a V8 cache is only good for its own V8. */
  runtime: ManagedRuntime;
  /** The artifact folder (the task root) and the handler module in it. */
  artifactDir: string;
  handlerFile: string;
  /** The handler's export in that module, as its Handler names it (e.g. "handler", "nested.handler"). */
  exportPath: string;
  /** Make the cache after INIT and one invoke with the function's event. */
  firstInvoke?: boolean;
  /** After that invoke, defer to their first use the builtins the chunk requires that neither INIT nor the invoke used. */
  deferBuiltins?: boolean;
}

/** The child's verdict: what it did or what V8 did, and where INIT stopped if it was refused a connection (WarpPartialInit) or failed ("stopped"). */
interface Verdict {
  verdict: string;
  /** What INIT wrote (Node's own lines too, with NODE_DEBUG_NATIVE). */
  output: string;
  refused: string[];
  /** The error INIT stopped with, where it stopped after loading the chunk ("stopped" mode). */
  stoppedBy?: string;
  /** Whether it ran in a Worker of the long-lived INIT server (init-server.mts), not a Node of its own. */
  served: boolean;
}

/**
 * How an INIT that fails after loading the chunk counts: "full", not at all; "partial"
 * (WarpPartialInit), when it was refused a connection beyond AWS; "stopped" (the fallback of a
 * full INIT that failed), whatever stopped it: the cache holds what compiled until then.
 */
type InitMode = "full" | "partial" | "stopped";

/** Where a CodeCacheError's message quotes INIT's output, after what it says of the failure. */
const INIT_OUTPUT = "INIT's output:";

/**
 * A failed build in a line: the builder's first; where that says INIT failed, all it says of the
 * failure (the call that failed, what to declare) and the error INIT threw (its output's last).
 */
export function buildFailure(message: string): string {
  if (!message.includes(INIT_OUTPUT)) return message.split("\n")[0]!;
  const [said, output = ""] = message.split(`\n${INIT_OUTPUT}\n`);
  const thrown = thrownIn(output);
  return `${said!.split("\n").join(" ")}${thrown ? ` (${thrown})` : ""}`;
}

/** The prefix of the child's verdict when INIT failed after loading the chunk (code-cache-child.mjs). */
const INIT_STOPPED = "INIT stopped: ";

/**
 * Runs the artifact's INIT in a fresh process of its runtime's Node for `architecture` (core/runtimes.mts
 * nodeFor: under qemu for arm64 on an x86-64 machine); "write" saves the cache of that
 * architecture beside the handler, "status" answers what V8 did with it. With WarpPartialInit,
 * an INIT that fails because it was refused a connection beyond AWS still counts; any other
 * failure does not.
 */
async function init(
  artifact: CachedArtifact,
  services: InitServices,
  variables: Record<string, string>,
  mode: "write" | "status" | "compile-cache",
  architecture: string,
  initMode: InitMode,
  place: Placed,
  eventFile: string | undefined,
  debugNative?: string,
): Promise<Verdict> {
  const { fn, runtime } = artifact;
  const { taskRoot: artifactDir } = place;
  const maker = mode === "compile-cache" ? "NodeCompileCache" : "Warp";
  const [command, prefix] = nodeFor(runtime, architecture);
  const accessKeyId = accessKeyFor(randomBytes(8).toString("hex"));
  const env = initEnvironment(artifact, place, services, { accessKeyId, variables });
  // One per architecture and mode: the architectures' INITs run at once.
  const verdictFile = join(ownedDir(LAB_RUN_DIR), `code-cache-verdict-${architecture}-${mode}`);
  let output: string;
  let served = false;
  try {
    const node = [command, ...prefix, ...runtime.nodeFlags(fn.memoryMb)];
    const childArgs = [
      mode,
      join(artifactDir, artifact.handlerFile),
      verdictFile,
      JSON.stringify({
        partial: initMode !== "full",
        invoke: eventFile ? { event: eventFile, exportPath: artifact.exportPath, timeoutMs: Math.min(fn.timeoutSeconds, INVOKE_SECONDS) * 1000 } : undefined,
        deferBuiltins: artifact.deferBuiltins,
      }),
    ];
    const answer = servedInit(mode, prefix, variables, debugNative)
      ? await initInServer(node, { argv: childArgs, env, cwd: artifactDir, timeoutMs: INIT_TIMEOUT_MS }).catch(() => null)
      : null;
    if (answer && !answer.output.includes(WORKER_REFUSED)) {
      served = true;
      if (answer.code !== 0) throw Object.assign(new Error(`exit ${answer.code}`), { stdout: answer.output });
      output = answer.output;
    } else {
      // A Node of its own: no server asked for, none that answered, or an INIT that does what a Worker may not.
      // Through the function's exec wrapper, if it has one: the cache is V8's under the flags the wrapped process runs with.
      const [program, args] = bootstrapCommand([...node, CHILD, ...childArgs], variables, { taskRoot: artifactDir });
      const { stdout, stderr } = await execOwned(program, args, {
        env: debugNative ? { ...env, NODE_DEBUG_NATIVE: debugNative } : env,
        timeout: INIT_TIMEOUT_MS,
        cwd: artifactDir,
      });
      output = `${stdout}${stderr}`;
    }
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new CodeCacheError(initFailure(maker, fn, artifact.template.file, `${stdout}${stderr}`, services, await services.calls(accessKeyId)));
  }
  const verdict = readFileSync(verdictFile, "utf8");
  if (!verdict.startsWith(INIT_STOPPED)) return { verdict, refused: [], output, served };
  if (initMode === "stopped")
    return { verdict: verdict.slice(INIT_STOPPED.length), refused: refusedHostsIn(output), stoppedBy: thrownIn(output) ?? "", output, served };
  const refused = refusedHostsIn(output);
  // A partial INIT is for a connection beyond AWS only: any other failure is INIT's own.
  if (!refused.length) throw new CodeCacheError(initFailure(maker, fn, artifact.template.file, output, services, await services.calls(accessKeyId)));
  return { verdict: verdict.slice(INIT_STOPPED.length), refused, output, served };
}

/** The longest a build-time INIT may run. */
const INIT_TIMEOUT_MS = 120_000;

/** What a Worker answers an INIT that does what only a process's main thread may (process.chdir, process.umask with a mask). */
const WORKER_REFUSED = "ERR_WORKER_UNSUPPORTED_OPERATION";

/**
 * Whether an INIT runs in the long-lived Node of its toolchain (init-server.mts) rather than a Node
 * of its own: the one that writes a cache under qemu, where a Node's start costs 0.7 s of the INIT's
 * 1.9 (docs/build-time.md). Not the check (a fresh process, as Lambda's), nor a function whose
 * exec wrapper or own NODE_OPTIONS starts its Node otherwise, nor one whose Node reports on itself.
 */
function servedInit(mode: string, prefix: string[], variables: Record<string, string>, debugNative: string | undefined): boolean {
  return mode === "write" && prefix.length > 0 && !variables.AWS_LAMBDA_EXEC_WRAPPER && !variables.NODE_OPTIONS && !debugNative;
}

/** Where an INIT runs: the artifact itself, or a task root placed as the lab places one (below its layers' /opt). */
interface Placed {
  taskRoot: string;
  optDir?: string;
  remove(): void;
}

/**
 * A function with layers of the app runs its INIT where Lambda's module paths find what they
 * provide (the lab's task-root layout, writable here for the cache); any other, in its artifact.
 */
function placeForInit(artifact: CachedArtifact): Placed {
  const { fn, artifactDir } = artifact;
  if (fn.layers.length === 0) return { taskRoot: artifactDir, remove: () => {} };
  const optDir = prepareLayersDir(fn.layers.map((layer) => builtLayer(layer, [dirname(artifactDir), buildDirOf(artifact.template.file)])));
  const taskRoot = prepareTaskRoot({
    name: fn.logicalId,
    codeDir: artifactDir,
    handler: fn.handler,
    memoryMb: fn.memoryMb,
    runtime: artifact.runtime,
    optDir,
  });
  chmodSync(taskRoot, 0o755); // the child writes the cache beside the handler
  return {
    taskRoot,
    optDir,
    remove: () => {
      removeTaskRoot(taskRoot);
      removeTree(optDir);
    },
  };
}

/** The longest the build's invoke may run (the function's Timeout, if shorter): a cache holds what ran by then. */
const INVOKE_SECONDS = 20;

/** The environment of a build-time INIT: the lab's of the function, with these services and variables. */
function initEnvironment(
  { fn, runtime, artifactDir }: Pick<CachedArtifact, "fn" | "runtime" | "artifactDir">,
  place: Pick<Placed, "taskRoot" | "optDir">,
  services: Pick<InitServices, "endpoint" | "caFile" | "xrayAddress">,
  options: { accessKeyId?: string; variables: Record<string, string> },
): Record<string, string> {
  return functionEnvironment(
    { name: fn.logicalId, codeDir: artifactDir, handler: fn.handler, memoryMb: fn.memoryMb, runtime, optDir: place.optDir },
    place.taskRoot,
    { awsEndpoint: services.endpoint, caFile: services.caFile, xrayDaemon: services.xrayAddress },
    options,
  );
}

/**
 * Starts, while the function bundles and the local AWS opens, the long-lived Node its write INIT
 * under qemu will ask (init-server.mts): at a `sam build`'s first Warp build, its start is over a
 * second. The server is chosen by what the INIT's environment will be: the local AWS's CA
 * (LOCAL_AWS_CA_FILE) and the template's variables, their references not yet resolved; where that
 * guess misses, the INIT starts the one it needs, and this one stops once idle.
 */
export function startInitServerFor(artifact: Pick<CachedArtifact, "template" | "fn" | "runtime" | "artifactDir">): void {
  const { template, fn, runtime } = artifact;
  if (fn.layers.length > 0) return; // its task root is placed for the INIT (placeForInit)
  const [command, prefix] = nodeFor(runtime, fn.architecture);
  const { variables } = templateVariables(template, fn, {}, readEnvVars(template.file));
  if (!servedInit("write", prefix, variables, undefined)) return;
  const services = { endpoint: "https://127.0.0.1", caFile: LOCAL_AWS_CA_FILE, xrayAddress: "127.0.0.1:2000" };
  startInitServerAhead(
    [command, ...prefix, ...runtime.nodeFlags(fn.memoryMb)],
    initEnvironment(artifact, { taskRoot: artifact.artifactDir }, services, { variables }),
  );
}

/** The child's verdict when INIT never loaded the chunk (code-cache-child.mjs). */
const CHUNK_NOT_LOADED = "not loaded";

/** This machine's architecture, in Lambda's words. */
const HOST_ARCHITECTURE = process.arch === "arm64" ? "arm64" : "x86_64";

/**
 * Makes the code cache for the function's architecture (sdk.<arch>.cache beside the handler,
 * shipped) and, when this machine's differs, one for it too, into the lab's overlay (never
 * shipped): the lab measures Warp on this machine with a cache V8 takes, Lambda gets the one its
 * CPU takes. Each is checked by a second INIT.
 */
export interface CodeCache {
  bytes: number;
  architectures: string[];
  /** Those whose check an earlier build's stood for: V8 of the same Node, under the same flags, accepted its cache then (toolchainOf). */
  checkedBefore: string[];
  /** The connections beyond AWS its INIT was refused, before which the cache was made (WarpPartialInit); empty for a whole INIT. */
  refused: string[];
  /** The error that stopped its INIT, before which the cache was made (a whole INIT failed, and this is what compiled until then). */
  stoppedBy?: string;
  /** The function's environment as its INIT got it: the variables that got a placeholder. */
  variables: FunctionVariables;
}

/**
 * Makes the function's code caches from a whole INIT; where that INIT fails after loading the
 * chunk, from what it compiled until it failed (said: stoppedBy). Any other failure is a
 * CodeCacheError naming the first, which the build answers by building without the cache.
 */
export async function makeCodeCache(artifact: CachedArtifact, openServices: OpenInitServices): Promise<CodeCache> {
  const initMode = acceptsPartialInit(artifact.fn) ? "partial" : "full";
  try {
    return await cachesFrom(artifact, openServices, initMode);
  } catch (error) {
    if (!(error instanceof CodeCacheError) || initMode !== "full") throw error;
    let stopped: CodeCache;
    try {
      stopped = await cachesFrom(artifact, openServices, "stopped");
    } catch {
      throw error; // the whole INIT's failure says what went wrong
    }
    // What the whole INIT's failure said (the call that failed, what to declare), which the stopped one does not.
    return { ...stopped, stoppedBy: buildFailure(error.message) };
  }
}

/**
 * Runs `make` with what a build-time INIT needs: the local AWS, the task root it runs in, the
 * function's environment as the lab gives it, and the architectures to make a cache for (the
 * function's, shipped, and this machine's, the lab's); releases them after.
 */
async function withInitSetting<T>(
  artifact: CachedArtifact,
  openServices: OpenInitServices,
  make: (setting: { services: InitServices; place: Placed; environment: FunctionVariables; architectures: string[] }) => Promise<T>,
): Promise<T> {
  const services = await openServices(artifact.template, artifact.fn);
  const place = placeForInit(artifact);
  try {
    const environment = templateVariables(artifact.template, artifact.fn, services.attributes, readEnvVars(artifact.template.file));
    return await make({ services, place, environment, architectures: [...new Set([artifact.fn.architecture, HOST_ARCHITECTURE])] });
  } finally {
    place.remove();
    await services.release();
  }
}

async function cachesFrom(artifact: CachedArtifact, openServices: OpenInitServices, initMode: InitMode): Promise<CodeCache> {
  return withInitSetting(artifact, openServices, async ({ services, place, environment, architectures }) => {
    const eventFile = artifact.firstInvoke ? firstEventFile(artifact.fn) : undefined;
    const { variables } = environment;
    const handlerDir = dirname(artifact.handlerFile);
    /** One architecture's cache: written, checked, put where it goes; what its INIT was refused or stopped by, and whether an earlier check stood for its own. */
    const cacheFor = async (architecture: string): Promise<{ refused: string[]; stoppedBy?: string; vouched: boolean }> => {
      const written = await init(artifact, services, variables, "write", architecture, initMode, place, eventFile);
      if (written.verdict === CHUNK_NOT_LOADED) {
        const when = eventFile
          ? "neither its INIT nor an invoke with its event loads any of the packages it imports (it imports them dynamically, on a path that event does not take)"
          : "its INIT loads none of the packages it imports (it imports them dynamically, after INIT)";
        throw new CodeCacheError(
          `Warp cannot build ${artifact.fn.logicalId}'s V8 code cache: ${when}, so there is nothing for a cache to hold. Build ${artifact.fn.logicalId} with the Optimized profile.`,
        );
      }
      // This machine's check runs for every build (it proves INIT runs with the cache); under qemu, once per Node and flags.
      const toolchain = architecture === HOST_ARCHITECTURE ? null : toolchainOf(artifact, architecture, written.served);
      const vouched = toolchain !== null && checkedBefore(toolchain);
      const { verdict: status } = vouched
        ? { verdict: "accepted" }
        : await init(artifact, services, variables, "status", architecture, initMode, place, eventFile);
      if (status === "accepted" && toolchain) rememberCheck(toolchain);
      if (status !== "accepted") {
        throw new CodeCacheError(
          `V8 (${architecture}) did not accept the code cache it just made (status: ${status}); is the build running on the pinned Node ${artifact.runtime.nodeMajor}?`,
        );
      }
      // Made where INIT ran: into the artifact, which ships it.
      const made = join(handlerDir, cacheFileOf(architecture));
      if (place.taskRoot !== artifact.artifactDir) copyFileSync(join(place.taskRoot, made), join(artifact.artifactDir, made));
      if (architecture !== artifact.fn.architecture) {
        // Only the lab needs the host's cache: it joins the task root there (emulation/function-environment.mts).
        mkdirSync(dirname(join(labOverlayOf(artifact.artifactDir), made)), { recursive: true });
        renameSync(join(artifact.artifactDir, made), join(labOverlayOf(artifact.artifactDir), made));
      }
      return { refused: written.refused, stoppedBy: written.stoppedBy, vouched };
    };
    // Each architecture's at once: this machine's INITs take a tenth of the arm64 one's under qemu, and run beside it.
    const settled = await Promise.allSettled(architectures.map(cacheFor));
    const failed = settled.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
    const caches = settled.map((result) => (result as PromiseFulfilledResult<Awaited<ReturnType<typeof cacheFor>>>).value);
    const refused = new Set(caches.flatMap((cache) => cache.refused));
    const stoppedBy = caches.find((cache) => cache.stoppedBy !== undefined)?.stoppedBy;
    const vouched = architectures.filter((_, i) => caches[i]!.vouched);
    return {
      bytes: statSync(join(artifact.artifactDir, handlerDir, cacheFileOf(artifact.fn.architecture))).size,
      architectures,
      checkedBefore: vouched,
      refused: [...refused],
      stoppedBy,
      variables: environment,
    };
  });
}

/**
 * What V8's acceptance of a cache depends on, beyond the script it was made from: the Node binary
 * that made it (its path and file), the architecture and the flags it ran with (and whether a Worker
 * of the long-lived INIT server made it, init-server.mts). A cache V8 made is
 * one it takes under the same ones, so the first check under them stands for the next builds': an
 * arm64 check costs a Node start under qemu (1.5 s of a Warp build's ~5, docs/runs/2026-11-28.md).
 */
function toolchainOf(artifact: CachedArtifact, architecture: string, served: boolean): string {
  const [command, prefix] = nodeFor(artifact.runtime, architecture);
  const files = [command, ...prefix].flatMap((part) => {
    const stat = existsSync(part) ? statSync(part) : null;
    return stat?.isFile() ? [`${part}:${stat.size}:${stat.mtimeMs}`] : [];
  });
  // Made in a Worker of a long-lived Node (init-server.mts) or a Node of its own: each checked first under each toolchain.
  const identity = [...files, architecture, ...artifact.runtime.nodeFlags(artifact.fn.memoryMb), served ? "init-server" : "own-node"];
  return createHash("sha256").update(identity.join("\0")).digest("hex").slice(0, 24);
}

/** Where the toolchains whose cache V8 accepted are noted, one empty file each, in the lab's home. */
const checksDir = () => join(labHomeDir(), "code-cache-checks");
const checkedBefore = (toolchain: string) => existsSync(join(checksDir(), toolchain));
function rememberCheck(toolchain: string): void {
  mkdirSync(checksDir(), { recursive: true });
  writeFileSync(join(checksDir(), toolchain), "");
}

/**
 * The event the build's invoke sends (the one the lab and the bench send: its trigger's, or the
 * app's events/<LogicalId>.json), in a file; none for a function the lab makes no event for.
 */
function firstEventFile(fn: TemplateFunction): string | undefined {
  let event: unknown;
  try {
    event = functionEvent(fn);
  } catch {
    return undefined; // the cache holds what INIT compiled, as without the invoke
  }
  const file = join(ownedDir(LAB_RUN_DIR), "code-cache-event.json");
  writeFileSync(file, JSON.stringify(event));
  return file;
}

/** The header of a code cache file (its first line: src/contract.mts's CacheHeader), or null for a file without one. */
export function cacheHeaderOf(file: string): Partial<CacheHeader> | null {
  const text = readFileSync(file).subarray(0, 4096).toString("latin1");
  try {
    return JSON.parse(text.slice(0, text.indexOf("\n"))) as Partial<CacheHeader>;
  } catch {
    return null;
  }
}

/** The cache file V8 of an architecture takes, as the chunk loader reads it (src/warp/sdk-chunk-loader.mts). */
export const cacheFileOf = (architecture: string) => `sdk.${nodeArch(architecture)}.cache`;

/** The first Node whose module compile cache can be made in one folder and used in another (module.enableCompileCache's portable). */
export const PORTABLE_COMPILE_CACHE_NODE = 24;

/** Where Node's module compile cache of a NodeCompileCache build is, beside its handler. */
const NODE_COMPILE_CACHE_DIR = ".node-compile-cache";

/** The bundle a NodeCompileCache build's handler loads once it has enabled the cache: index.mjs's is index.bundle.mjs. */
export const compileCacheBundleOf = (outputFile: string) => outputFile.replace(/\.[cm]js$/, ".bundle$&");

/**
 * The handler a NodeCompileCache build ships: it enables Node's module compile cache (portable:
 * keyed by paths relative to it, so a cache made in the build's folder serves /var/task), then
 * loads the bundle, which Node then compiles from the cache (module.enableCompileCache's
 * documented use: enable before the modules to cache load).
 */
export function writeCompileCacheLoader(handlerFile: string, exportPath: string): void {
  const bundle = `./${basename(compileCacheBundleOf(handlerFile))}`;
  const [exported] = exportPath.split(".");
  const options = (dir: string) => `{ directory: ${dir} + ${JSON.stringify(`/${NODE_COMPILE_CACHE_DIR}`)}, portable: true }`;
  writeFileSync(
    handlerFile,
    handlerFile.endsWith(".cjs")
      ? `require("node:module").enableCompileCache(${options("__dirname")});\nmodule.exports = require(${JSON.stringify(bundle)});\n`
      : `import { enableCompileCache } from "node:module";\nenableCompileCache(${options("import.meta.dirname")});\nexport const { ${exported} } = await import(${JSON.stringify(bundle)});\n`,
  );
}

/**
 * The uid Lambda runs a function's code as (sbx_user1051, 993): Node's compile cache keeps each
 * user's entries in a folder named after its uid, and finds only its own.
 */
const LAMBDA_UID = 993;

/** What a NodeCompileCache build made: the bytes shipped and the architectures whose cache V8 accepted on a test INIT. */
export interface NodeCompileCache {
  bytes: number;
  architectures: string[];
}

/**
 * Makes Node's module compile cache of a NodeCompileCache build: its INIT imports the handler,
 * which enables the cache beside it, and Node saves each module's cache as it compiles it,
 * before running it (so an invoke would add nothing). A second INIT, with Node's own account
 * (NODE_DEBUG_NATIVE=COMPILE_CACHE), checks that V8 accepted the bundle's. Node names the cache's
 * folder after its version, the CPU architecture, V8's flags and the uid: the function's
 * architecture's ships under Lambda's uid; the lab's, under this user's, goes to the lab's overlay.
 */
export async function makeNodeCompileCache(artifact: CachedArtifact, openServices: OpenInitServices): Promise<NodeCompileCache> {
  return withInitSetting(artifact, openServices, async ({ services, place, environment: { variables }, architectures }) => {
    const made = join(dirname(artifact.handlerFile), NODE_COMPILE_CACHE_DIR);
    const bundle = basename(compileCacheBundleOf(artifact.handlerFile));
    const uid = process.getuid?.() ?? 0;
    for (const architecture of architectures) {
      await init(artifact, services, variables, "compile-cache", architecture, "full", place, undefined);
      const { output } = await init(artifact, services, variables, "compile-cache", architecture, "full", place, undefined, "COMPILE_CACHE");
      const accepted = output.split("\n").some((line) => line.includes(bundle) && line.includes("was accepted"));
      if (!accepted)
        throw new CodeCacheError(
          `V8 (${architecture}) did not accept Node's compile cache of ${artifact.fn.logicalId}'s bundle it just made: ${output.trim().split("\n").slice(-3).join(" ")}`,
        );
      const [folder] = readdirSync(join(place.taskRoot, made)).filter((name) => name.includes(`-${nodeArch(architecture)}-`) && name.endsWith(`-${uid}`));
      const from = join(place.taskRoot, made, folder!);
      chmodSync(from, 0o755);
      for (const file of readdirSync(from)) chmodSync(join(from, file), 0o644); // Node writes them for its user alone
      const overlay = join(labOverlayOf(artifact.artifactDir), made, folder!);
      if (architecture === HOST_ARCHITECTURE) cpSync(from, overlay, { recursive: true });
      if (architecture === artifact.fn.architecture)
        cpSync(from, join(artifact.artifactDir, made, folder!.replace(/-\d+$/, `-${LAMBDA_UID}`)), { recursive: true });
      removeTree(from);
    }
    const shipped = join(artifact.artifactDir, made);
    return {
      bytes: readdirSync(shipped, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .reduce((sum, entry) => sum + statSync(join(entry.parentPath, entry.name)).size, 0),
      architectures,
    };
  });
}
