// The pinned tools a run needs beyond the npm package (each managed runtime's Node, Lambda's arm64
// Node and qemu for Warp's arm64 code cache, SAM CLI when the PATH has none it supports, moto, the
// SDK trees, the runtime matrix's Deno and Bun, hyperfine, Artillery), installed the first time a run
// needs them by scripts/setup.sh's part for each, in TOOLS_HOME, each one said before it downloads:
// a command never downloads what it does not use.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, join } from "node:path";
import semver from "semver";
import { PACKAGE_ROOT, TOOLS_HOME, toolPath, VENV_BIN } from "./paths.mts";

/** The parts of scripts/setup.sh a run installs when it first needs them. */
export type OnDemandPart =
  | `node${18 | 20 | 22 | 24}`
  | `node${18 | 20 | 22 | 24}-arm64`
  | "sam"
  | "moto"
  | "published"
  | "runtime-trees"
  | "runtimes"
  | "runtimes-arm64"
  | "hyperfine"
  | "artillery";

/**
 * Where installs say what they download: stderr, but stdout in `warpstart build`, which SAM's
 * makefile builder runs: it shows a build's stdout as it runs, its stderr only when it fails.
 */
let progress: 1 | 2 = 2;
export const sayProgressOnStdout = () => {
  progress = 1;
};

/** Runs scripts/setup.sh for `part` (a no-op once it is installed) in TOOLS_HOME; throws if it fails. */
export function installPart(part: OnDemandPart): void {
  // The machine's own tools (sha256sum, apt-get...) on PATH whatever the caller's PATH is.
  const env = { ...process.env, WARPSTART_HOME: TOOLS_HOME, PATH: [process.env.PATH, "/usr/local/bin", "/usr/bin", "/bin"].filter(Boolean).join(":") };
  const run = spawnSync("/bin/bash", [join(PACKAGE_ROOT, "scripts/setup.sh"), part], { stdio: ["ignore", progress, progress], env });
  if (run.status !== 0) throw new Error(`installing ${part} failed (bash scripts/setup.sh ${part}: exit ${run.status ?? run.signal}): see above`);
}

/** The parts no single binary stands for, and the stamp scripts/setup.sh writes when each is installed. */
const STAMPS = {
  moto: ".venv/.warpstart-stamp-moto",
  sam: ".venv/.warpstart-stamp-sam",
  published: "published/node_modules/.warpstart-stamp",
} as const satisfies Partial<Record<OnDemandPart, string>>;
/** Installs `part` unless its stamp is there. */
export function ensurePart(part: keyof typeof STAMPS): void {
  if (!existsSync(toolPath(STAMPS[part]))) installPart(part);
}

/** The SAM CLI versions the package runs: from 1.130.0, the first to build nodejs22.x (the default runtime of what adopt writes). */
export const SAM_CLI_SUPPORTED = ">=1.130.0";

export interface SamCli {
  bin: string;
  version: string;
  /** Where it came from: the user's PATH, or the venv the package installs it in. */
  from: "PATH" | "venv";
}

/**
 * The SAM CLI on `path` (a PATH's value), when it is a version the package supports, said with its
 * version; else null, and why not said when there is one.
 */
export function samCliOnPath(path: string, say: (line: string) => void): SamCli | null {
  const onPath = path
    .split(delimiter)
    .filter((dir) => dir && dir !== VENV_BIN)
    .map((dir) => join(dir, "sam"))
    .find((bin) => existsSync(bin));
  if (!onPath) return null;
  const version = /(\d+\.\d+\.\d+)/.exec(
    spawnSync(onPath, ["--version"], { encoding: "utf8", env: { ...process.env, SAM_CLI_TELEMETRY: "0" } }).stdout ?? "",
  )?.[1];
  if (version && semver.satisfies(version, SAM_CLI_SUPPORTED)) {
    say(`SAM CLI ${version} from PATH (${onPath})`);
    return { bin: onPath, version, from: "PATH" };
  }
  say(`SAM CLI ${version ?? "of unknown version"} on PATH (${onPath}) is not one warpstart supports (${SAM_CLI_SUPPORTED}): using its own`);
  return null;
}

let samCli: SamCli | undefined;
/**
 * The SAM CLI every command runs, found once: the user's, on PATH, when it is a version the package
 * supports; else the pinned one the package installs in its venv the first time a command needs it.
 */
export function resolveSamCli(): SamCli {
  samCli ??= samCliOnPath(process.env.PATH ?? "", (line) => process.stderr.write(`[warpstart] ${line}\n`)) ?? pinnedSamCli();
  return samCli;
}

/** The SAM CLI the package pins (requirements/sam.txt), installed in its venv. */
function pinnedSamCli(): SamCli {
  ensurePart("sam");
  const version = /aws-sam-cli==(\S+)/.exec(readFileSync(join(PACKAGE_ROOT, "requirements/sam.txt"), "utf8"))?.[1] ?? "unknown";
  return { bin: join(VENV_BIN, "sam"), version, from: "venv" };
}

/**
 * An AWS SDK package the lab and the deployed bench call AWS with (@aws-sdk/client-lambda,
 * client-cloudformation): where the package's code resolves it (the app installs it, or this
 * repository), else from the package's own SDK tree, installed when first needed: the package does
 * not depend on the SDK, so that adopt and the builds install none of it.
 */
async function awsSdkPackage<T>(name: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw error;
  }
  ensurePart("published");
  return createRequire(toolPath("published/package.json"))(name) as T;
}

/** @aws-sdk/client-lambda (awsSdkPackage): what the bench and the lab invoke functions with. */
export const lambdaSdk = () => awsSdkPackage<typeof import("@aws-sdk/client-lambda")>("@aws-sdk/client-lambda");
/** @aws-sdk/client-cloudformation (awsSdkPackage): what a deployed stack's outputs and functions are read with. */
export const cloudFormationSdk = () => awsSdkPackage<typeof import("@aws-sdk/client-cloudformation")>("@aws-sdk/client-cloudformation");
