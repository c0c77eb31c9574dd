// How Lambda starts a function, reproduced for local runs (the lab, and the build's INIT for
// Warp's code cache): the read-only task root and the environment variables. The node flags the
// managed runtimes derive from memory size are in core/runtimes.mts; a custom runtime's /opt is the
// lab's (lab/opt-dir.mts). Sources: the Lambda developer guide's "Defined runtime environment
// variables" and "Lambda execution environment" pages.
import { randomBytes } from "node:crypto";
import {
  accessSync,
  chmodSync,
  constants,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { labHomeDir, STATE_DIR } from "../core/paths.mts";
import { ownedDir, removeTree } from "../core/processes.mts";
import type { Runtime } from "../core/runtimes.mts";
import type { ResourceAttributes, SamTemplate, TemplateFunction, TemplateLayer } from "../core/template.mts";
import { type EnvVars, envVarsFileOf, envVarsOf } from "./env-vars.mts";
import { LOCAL_REGION, type LocalAws } from "./local-aws/local-aws.mts";
import { installedOnDemandDirOf, runtimeDirOf, runtimeSdkTreesOf } from "./runtime-sdk.mts";

/**
 * What a build leaves beside an artifact for the lab alone (never shipped): e.g. Warp's code
 * cache for this machine's CPU, when the function's architecture is another. The lab adds it to
 * every task root it copies from the artifact.
 */
export const labOverlayOf = (artifactDir: string) => `${artifactDir.replace(/\/+$/, "")}.lab`;

/** Where the lab's processes keep what they own in the project (custom runtimes' opt dirs, a build's verdicts), one folder per owner. */
export const LAB_RUN_DIR = join(STATE_DIR, "run");

export interface FunctionSpec {
  name: string;
  /** The built artifact (e.g. .aws-sam/build/Optimized). */
  codeDir: string;
  handler: string;
  memoryMb: number;
  /** What runs it. */
  runtime: Runtime;
  /** Its stand-in for /opt: a custom runtime's layer with the host's binary, or the app's own layers (lab/opt-dir.mts). */
  optDir?: string;
}

/** The local AWS the function calls: every client's endpoint, and the CA to trust for it. */
export interface LocalServices {
  awsEndpoint: string;
  caFile: string;
  /** host:port of the X-Ray daemon its tracer sends segments to (LocalAws.xray). */
  xrayDaemon?: string;
  /** The endpoint by name, when the network has a DNS lookup (LocalAws.byName): a Node function resolves it itself. */
  awsByName?: { endpoint: string; dnsMs: number } | null;
}

/** What a function of the lab needs of a running local AWS. */
export const servicesOf = (aws: Pick<LocalAws, "endpoint" | "byName" | "caFile" | "xray">): LocalServices => ({
  awsEndpoint: aws.endpoint,
  caFile: aws.caFile,
  awsByName: aws.byName,
  xrayDaemon: aws.xray.address,
});

/** Loaded into a function that imports a layer's file by its absolute path under /opt: maps it to the lab's opt folder. */
const OPT_PATHS = join(import.meta.dirname, "opt-paths.cjs");

/** A path under /opt, written as a string in code: what a function importing a layer's file by its absolute path has. */
const OPT_PATH = /["'`](?:file:\/\/)?\/opt\//;
// Read once per artifact: every environment a lab starts asks.
const optPathsIn = new Map<string, boolean>();

/** Whether an artifact's code names a path under /opt (import ... from "/opt/nodejs/config.mjs"). */
function namesOptPaths(codeDir: string): boolean {
  if (!optPathsIn.has(codeDir)) {
    const files = existsSync(codeDir) ? readdirSync(codeDir, { recursive: true, encoding: "utf8" }) : [];
    optPathsIn.set(
      codeDir,
      files.some((file) => !file.includes("node_modules") && /\.[cm]?js$/.test(file) && OPT_PATH.test(readFileSync(join(codeDir, file), "utf8"))),
    );
  }
  return optPathsIn.get(codeDir)!;
}

/** Plays the DNS lookup in a Node function's own process (local-aws/dns.cjs). */
const DNS_PRELOAD = join(import.meta.dirname, "local-aws/dns.cjs");
/** Refuses a Node function's connections beyond this machine (local-aws/outbound-guard.cjs). */
export const OUTBOUND_GUARD = join(import.meta.dirname, "local-aws/outbound-guard.cjs");
/** The line the guard writes to the function's stderr, naming the host and port it refused (host:port). */
const REFUSED_CONNECTION = /warpstart: refused an outbound connection to (\S+):/g;

/** The host:port pairs a function's output says the outbound guard refused, each once. */
export const refusedHostsIn = (output: string) => [...new Set([...output.matchAll(REFUSED_CONNECTION)].map((match) => match[1]!))];

/**
 * Every client's endpoint. A Node function gets the local AWS by name when the network has a
 * lookup, so that the lookup runs in its process as on Lambda and can overlap its own work; S3
 * keeps the address (its client puts the bucket in the host name, which the local AWS's
 * certificate for localhost does not cover), and so does a custom runtime (its lookup is the
 * proxy's). NODE_OPTIONS: the function's own, then the preloads: the outbound guard for every
 * Node function, the DNS lookup's where the network has one.
 */
function endpointVariables(runtime: Runtime, services: LocalServices, nodeOptions: string | undefined, optPaths: boolean): Record<string, string> {
  if (runtime.kind !== "managed") return { AWS_ENDPOINT_URL: services.awsEndpoint };
  const preloads = (...files: string[]) =>
    [nodeOptions, ...[...files, ...(optPaths ? [OPT_PATHS] : [])].map((file) => `--require=${file}`)].filter(Boolean).join(" ");
  if (!services.awsByName) return { AWS_ENDPOINT_URL: services.awsEndpoint, NODE_OPTIONS: preloads(OUTBOUND_GUARD) };
  return {
    AWS_ENDPOINT_URL: services.awsByName.endpoint,
    AWS_ENDPOINT_URL_S3: services.awsEndpoint,
    WARPSTART_LAB_DNS_MS: String(services.awsByName.dnsMs),
    NODE_OPTIONS: preloads(OUTBOUND_GUARD, DNS_PRELOAD),
  };
}

/** What Lambda's X-Ray integration gives every function (the developer guide's reserved variables), pointed at the lab's daemon. */
function xrayVariables(services: LocalServices): Record<string, string> {
  if (!services.xrayDaemon) return {};
  const [host, port] = services.xrayDaemon.split(":");
  return {
    AWS_XRAY_DAEMON_ADDRESS: services.xrayDaemon,
    _AWS_XRAY_DAEMON_ADDRESS: host!,
    _AWS_XRAY_DAEMON_PORT: port!,
    AWS_XRAY_CONTEXT_MISSING: "LOG_ERROR",
  };
}

/** A log stream's name as Lambda makes one: 2026/11/24/[$LATEST]<32 hex digits>. */
const logStreamName = () => `${new Date().toISOString().slice(0, 10).replaceAll("-", "/")}/[$LATEST]${randomBytes(16).toString("hex")}`;

/**
 * An access key of the environment's own, as Lambda gives each environment its own session
 * credentials: the local AWS records it with every call, so calls can be told apart by
 * environment. `id` is any hex string (an environment id); "ASIA" marks temporary credentials.
 */
export function accessKeyFor(id: string): string {
  return `ASIA${id.slice(0, 16).toUpperCase().padEnd(16, "0")}`;
}

/** Where the symbolic link at `path` points; null when there is none. */
function linkTarget(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

/** A symbolic link at `path` to `target`, made once (another lab may have made it first). */
function linkOnce(target: string, path: string): void {
  if (linkTarget(path) === target) return;
  mkdirSync(dirname(path), { recursive: true });
  rmSync(path, { force: true });
  try {
    symlinkSync(target, path);
  } catch (error) {
    if (linkTarget(path) !== target) throw error;
  }
}

/** The Node.js major of a managed runtime (nodejs22.x: 22), as Lambda names a layer's per-version folder (nodejs/node22/node_modules). */
const nodeMajorOf = (runtime: Runtime) => /^nodejs(\d+)\.x$/.exec(runtime.lambdaRuntime)?.[1];

/**
 * Copies the artifact to a fresh, read-only task root (Lambda's /var/task is read-only), in a folder
 * of this process's own (core/processes.mts: one a later run removes if this one cannot), outside the
 * project (core/paths.mts labHomeDir). Node's ES-module resolver ignores NODE_PATH, which Lambda's
 * runtimes search (/opt/nodejs/nodeNN/node_modules, /opt/nodejs/node_modules, /var/runtime/node_modules):
 * a managed runtime's task root is placed so that its ancestors' node_modules are those folders, in
 * that order (a parent node_modules costs nothing at startup, a loader hook would):
 *   <lab>/<runtime>/node_modules -> the runtime's SDK copy (emulation/runtime/<runtime>)
 *   <lab>/<runtime>/run/node_modules -> what it carries beyond, installed on demand (emulation/runtime-sdk.mts)
 *   <lab>/<runtime>/run/<owner>/<env>/node_modules -> /opt/nodejs/node_modules (the app's layers)
 *   <lab>/<runtime>/run/<owner>/<env>/v/node_modules -> /opt/nodejs/nodeNN/node_modules
 *   <lab>/<runtime>/run/<owner>/<env>/v/task: the task root
 * Nothing above <lab> is the project's. A custom runtime ships no SDK: its task roots are in
 * <lab>/custom, where no node_modules is in reach.
 */
export function prepareTaskRoot(spec: FunctionSpec): string {
  const lab = labHomeDir();
  // Node takes a .js file's module format from the nearest package.json: above /var/task there is
  // none, so it is CommonJS unless the artifact says otherwise; here one in the user's home would be
  // the nearest. One with no type ends the lookup where Lambda's would.
  const noFormat = join(lab, "package.json");
  if (!existsSync(noFormat)) writeFileSync(noFormat, "{}\n");
  if (spec.runtime.kind !== "managed") {
    const owned = ownedDir(join(lab, "custom"));
    mkdirSync(join(owned, "task"), { recursive: true });
    return readOnlyCopy(spec.codeDir, join(owned, "task", spec.name), labOverlayOf(spec.codeDir));
  }
  const base = join(lab, spec.runtime.name);
  linkOnce(join(runtimeDirOf(spec.runtime), "node_modules"), join(base, "node_modules"));
  const onDemand = join(installedOnDemandDirOf(spec.runtime), "node_modules");
  mkdirSync(onDemand, { recursive: true });
  linkOnce(onDemand, join(base, "run", "node_modules"));
  const env = join(ownedDir(taskRootsDirOf(spec.runtime)), `${spec.name}-${randomBytes(4).toString("hex")}`);
  mkdirSync(join(env, "v"), { recursive: true });
  if (spec.optDir) {
    symlinkSync(join(spec.optDir, "nodejs/node_modules"), join(env, "node_modules"));
    symlinkSync(join(spec.optDir, `nodejs/node${nodeMajorOf(spec.runtime)}/node_modules`), join(env, "v", "node_modules"));
  }
  return readOnlyCopy(spec.codeDir, join(env, "v", "task"), labOverlayOf(spec.codeDir));
}

/**
 * The app's own layers (AWS::Serverless::LayerVersion, built by sam build) as a managed runtime's
 * /opt, in the user's lab folder (outside the project: a layer's package finds no project's
 * node_modules above it): each layer's content in the order the function lists them, a later one's
 * files over an earlier one's, as Lambda extracts them. Read-only. A layer whose content is not
 * there (a layer the app builds by a script of its own, not run) is left out, and `tell` says why;
 * `tell` also names a layer whose files are nested in nodejs/ twice.
 */
export function prepareLayersDir(layers: TemplateLayer[], tell: (why: string) => void = () => {}): string {
  const optDir = join(ownedDir(join(labHomeDir(), "opt")), `layers-${randomBytes(4).toString("hex")}`);
  mkdirSync(optDir, { recursive: true });
  for (const layer of layers) {
    if (!existsSync(layer.contentDir)) {
      tell(
        `layer ${layer.logicalId}'s content ${layer.contentDir} does not exist: build it as the app's README says (or fix its ContentUri); its functions run without it`,
      );
      continue;
    }
    cpSync(layer.contentDir, optDir, { recursive: true, verbatimSymlinks: true });
    // Lambda runs it so too, and neither says why an import of /opt/nodejs/<file> is not found.
    if (existsSync(join(layer.contentDir, "nodejs", "nodejs")))
      tell(
        `layer ${layer.logicalId} puts its files in /opt/nodejs/nodejs/, as on Lambda, where no import of /opt/nodejs/<file> and no NODE_PATH finds them: ` +
          "sam build puts a layer built with a nodejs BuildMethod in nodejs/, and its ContentUri holds nodejs/ already; point ContentUri at that nodejs/ folder",
      );
  }
  chmodSync(optDir, 0o555);
  return optDir;
}

/** What Lambda gives code written inline in a template beside it: the cfn-response module (the lab's stand-in). */
const CFN_RESPONSE = join(import.meta.dirname, "cfn-response.cjs");

/**
 * A function's code written in its template (InlineCode, Code.ZipFile) as Lambda deploys it: the
 * text in index.js, with cfn-response beside it; in the user's lab folder, removed with the others.
 */
export function inlineCodeDir(fn: Pick<TemplateFunction, "logicalId" | "inlineCode">): string {
  const dir = join(ownedDir(join(labHomeDir(), "inline")), `${fn.logicalId.replaceAll("/", "-")}-${randomBytes(4).toString("hex")}`);
  mkdirSync(join(dir, "node_modules", "cfn-response"), { recursive: true });
  writeFileSync(join(dir, "index.js"), fn.inlineCode ?? "");
  copyFileSync(CFN_RESPONSE, join(dir, "node_modules", "cfn-response", "index.js"));
  return dir;
}

/** Where a managed runtime's task roots are, one folder per owner (core/processes.mts ownedDir). */
export const taskRootsDirOf = (runtime: Pick<Runtime, "name">) => join(labHomeDir(), runtime.name, "run");

/** Removes a task root prepareTaskRoot made, and the folder around it that only it used. */
export function removeTaskRoot(taskRoot: string): void {
  const env = dirname(dirname(taskRoot));
  removeTree(basename(dirname(taskRoot)) === "v" && existsSync(join(env, "v")) ? env : taskRoot);
}

/** A read-only copy of `source` at `<base>-<random id>` (links stay links), with `overlay`'s files added if it exists. */
export function readOnlyCopy(source: string, base: string, overlay?: string): string {
  const copy = `${base}-${randomBytes(4).toString("hex")}`;
  cpSync(source, copy, { recursive: true, verbatimSymlinks: true });
  if (overlay && existsSync(overlay)) cpSync(overlay, copy, { recursive: true });
  chmodSync(copy, 0o555);
  return copy;
}

/**
 * The environment a function sees: Lambda's reserved variables, the local AWS, the template's
 * own variables (`variables`, evaluated), nothing inherited from the caller's shell.
 */
export function functionEnvironment(
  spec: FunctionSpec,
  taskRoot: string,
  services: LocalServices,
  options: { accessKeyId?: string; variables?: Record<string, string> } = {},
): Record<string, string> {
  const { runtime } = spec;
  const optPaths = Boolean(spec.optDir) && namesOptPaths(spec.codeDir);
  // Only the managed runtimes' bootstraps set these (a custom runtime's bootstrap is the function's own).
  const managed: Record<string, string> =
    runtime.kind === "managed"
      ? {
          LAMBDA_RUNTIME_DIR: runtimeDirOf(runtime),
          // Lambda's bootstrap's NODE_PATH, where each folder is here: /opt's (a layer's), /var/runtime's, /var/task.
          NODE_PATH: [
            ...(spec.optDir ? [join(spec.optDir, `nodejs/node${nodeMajorOf(runtime)}/node_modules`), join(spec.optDir, "nodejs/node_modules")] : []),
            ...runtimeSdkTreesOf(runtime).map((tree) => join(tree, "node_modules")),
            runtimeDirOf(runtime),
            taskRoot,
          ].join(":"),
          AWS_EXECUTION_ENV: `AWS_Lambda_${runtime.lambdaRuntime}`,
          // What the bootstrap, a bash script, exports to the node it execs (an exec wrapper's shell adds one level).
          PWD: taskRoot,
          SHLVL: "1",
        }
      : { LAMBDA_RUNTIME_DIR: "/var/runtime" };
  return {
    PATH: `${process.env.PATH}`,
    LANG: "en_US.UTF-8",
    TZ: ":UTC",
    // The function's own variables first: Lambda's reserved ones cannot be overridden.
    ...options.variables,
    _HANDLER: spec.handler,
    LAMBDA_TASK_ROOT: taskRoot,
    ...managed,
    AWS_LAMBDA_FUNCTION_NAME: spec.name,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(spec.memoryMb),
    AWS_LAMBDA_FUNCTION_VERSION: "$LATEST",
    AWS_LAMBDA_INITIALIZATION_TYPE: "on-demand",
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${spec.name}`,
    AWS_LAMBDA_LOG_STREAM_NAME: logStreamName(),
    AWS_REGION: LOCAL_REGION,
    AWS_DEFAULT_REGION: LOCAL_REGION,
    // Credentials arrive as environment variables on Lambda; moto accepts any.
    AWS_ACCESS_KEY_ID: options.accessKeyId ?? accessKeyFor("0"),
    AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    AWS_SESSION_TOKEN: "warpstart-lab-session",
    // Every client of every service goes to the local AWS; nothing reaches *.amazonaws.com.
    ...endpointVariables(runtime, services, options.variables?.NODE_OPTIONS, optPaths),
    ...(optPaths ? { WARPSTART_OPT_DIR: spec.optDir! } : {}),
    ...xrayVariables(services),
    NODE_EXTRA_CA_CERTS: services.caFile,
  };
}

/** A function's environment variables as the lab gives them, and each that got a placeholder. */
export interface FunctionVariables {
  /** The function values are given for, by its logical id (a doctor's copy: the app's function it is made of), and the template whose seed folder can give them. */
  logicalId: string;
  templateFile: string;
  variables: Record<string, string>;
  /** The variables whose value references what the lab cannot make (an attribute the local AWS does not model, a parameter without a value): each its reference and placeholder. */
  placeholders: { name: string; reference: string; value: string }[];
}

/** What a variable gets for a reference the lab cannot evaluate: a name that says so, and, read as a host, one that never resolves (RFC 6761's .invalid). */
const placeholderFor = (reference: string) =>
  `warpstart-placeholder.${reference
    .replace(/^(!GetAtt|!Ref|Fn::ImportValue|the parameter) /, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")}.invalid`;

/**
 * A function's Environment.Variables with their references evaluated, as strings (as Lambda
 * passes them); a variable the user gives a value (emulation/env-vars.mts: SAM's --env-vars file)
 * takes it instead, and one whose reference the lab cannot evaluate gets a placeholder.
 */
export function templateVariables(
  template: SamTemplate,
  fn: TemplateFunction,
  created: Record<string, ResourceAttributes>,
  given: EnvVars = {},
): FunctionVariables {
  const own = envVarsOf(given, fn);
  const placeholders: FunctionVariables["placeholders"] = [];
  const variables = Object.entries(fn.environment).flatMap(([name, written]): [string, string][] => {
    if (name in own) return [[name, own[name]!]];
    const resolved = template.resolve({ [name]: written }, created, (reference) => {
      const stand = placeholderFor(reference);
      placeholders.push({ name, reference, value: stand });
      return stand;
    }) as Record<string, unknown>;
    // AWS::NoValue leaves the variable out, as CloudFormation does.
    if (!(name in resolved)) return [];
    const value = resolved[name];
    return [[name, typeof value === "string" ? value : JSON.stringify(value)]];
  });
  return { logicalId: fn.copyOf ?? fn.logicalId, templateFile: template.file, variables: Object.fromEntries(variables), placeholders };
}

/** The one line (the function's name left to the caller) that says which of a function's variables got a placeholder, and how to give each its value; null: none did. */
export function placeholdersLine({ logicalId, templateFile, placeholders }: FunctionVariables): string | null {
  if (placeholders.length === 0) return null;
  const each = placeholders.map(({ name, reference, value }) => `${name} (${reference}: ${value})`).join(", ");
  const example = JSON.stringify({ [logicalId]: Object.fromEntries(placeholders.map(({ name }) => [name, "..."])) });
  const seeds = relative(process.cwd(), envVarsFileOf(templateFile)) || envVarsFileOf(templateFile);
  const one = placeholders.length === 1;
  return `the lab cannot make the value${one ? "" : "s"} of ${each}, so ${one ? "it gets a placeholder" : "they get placeholders"}; give your own in ${seeds} or an --env-vars file, as sam local invoke takes it: ${example}`;
}

/** Where a path Lambda gives a function (/var/task/..., /opt/...) is on this machine; other paths are as given. */
function hostPath(lambdaPath: string, roots: { taskRoot: string; optDir?: string | null }): string {
  for (const [prefix, root] of [
    ["/var/task", roots.taskRoot],
    ["/opt", roots.optDir],
  ] as const) {
    const inside = relative(prefix, lambdaPath);
    if (root && !inside.startsWith("..")) return join(root, inside);
  }
  return lambdaPath;
}

/**
 * The command a managed runtime's bootstrap runs for `node` (the binary, its flags, the runtime
 * client): node itself, or with AWS_LAMBDA_EXEC_WRAPPER set, the wrapper with that whole command
 * as its arguments, after the bootstrap's own checks: "<wrapper>: does not exist" (exit 127) and
 * "<wrapper>: is not an executable" (exit 126), as Lambda's bootstraps print them.
 */
export function bootstrapCommand(
  node: readonly string[],
  variables: Record<string, string> | undefined,
  roots: { taskRoot: string; optDir?: string | null },
): [string, string[]] {
  const wrapper = variables?.AWS_LAMBDA_EXEC_WRAPPER;
  if (!wrapper) return [node[0]!, node.slice(1)];
  const file = hostPath(wrapper, roots);
  const refuse = (problem: string, code: number): [string, string[]] => ["/bin/bash", ["-c", `echo "$1: ${problem}"; exit ${code}`, "bootstrap", wrapper]];
  if (!existsSync(file) || !statSync(file).isFile()) return refuse("does not exist", 127);
  try {
    accessSync(file, constants.X_OK);
  } catch {
    return refuse("is not an executable", 126);
  }
  return [file, [...node]];
}
