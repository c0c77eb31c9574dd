// Where the package finds its tools and keeps its state: one place for every path.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, extname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { privateDir, privateTempDir } from "./processes.mts";

/** The package's folder: its code, and the files it installs its tools from (tools/, requirements/, the SDK trees' manifests). */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/**
 * How this copy runs its own modules: ".mts" in a source checkout (Node strips the types), ".mjs"
 * where the package is installed (the JavaScript `npm pack` builds: Node strips types only outside
 * node_modules).
 */
const OWN_EXTENSION = extname(fileURLToPath(import.meta.url));
/** A module of the package's own (its path without extension) as this copy runs it: what a child process or esbuild is given. */
export const ownModule = (path: string) => join(PACKAGE_ROOT, `${path}${OWN_EXTENSION}`);
/** The user's cache folder (XDG's), where the lab and the installed package's tools live. */
const userCache = () => process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
/**
 * Where the tools the package installs (tools/, the venv, the SDK trees) and its state (.lab) live:
 * the package's folder in a source checkout; once installed in an app, the user's cache, one folder
 * per version, which every app on the machine shares (nothing is written into node_modules).
 * WARPSTART_HOME chooses another (a CI cache); scripts/setup.sh is told it.
 */
export const TOOLS_HOME = process.env.WARPSTART_HOME
  ? resolve(process.env.WARPSTART_HOME)
  : OWN_EXTENSION === ".mjs"
    ? join(userCache(), "warpstart", (JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }).version)
    : PACKAGE_ROOT;
/** An installed tool's path: `path` under TOOLS_HOME. */
export const toolPath = (path: string) => join(TOOLS_HOME, path);
export const VENV_BIN = toolPath(".venv/bin");
export const NODE22 = toolPath("tools/node22/node_modules/.bin/node");
export const STATE_DIR = toolPath(".lab");
/** The CA that signs the local AWS's certificate: every INIT's NODE_EXTRA_CA_CERTS, known before the local AWS starts. */
export const LOCAL_AWS_CA_FILE = join(STATE_DIR, "certs/ca.pem");

let labHome: string | undefined;
/**
 * Where the lab's execution environments live: outside the project, so that what a task root's
 * ancestors hold is only what Lambda's /var/task sees (its layers, the runtime's copy of the SDK),
 * never the project's node_modules; in the user's cache folder, on storage (a /tmp in memory would
 * keep the code a new environment reads from ever leaving the page cache), private, one folder per
 * project. The system's temporary folder where there is no cache folder to write to.
 */
export function labHomeDir(): string {
  if (labHome) return labHome;
  const project = createHash("sha256").update(PACKAGE_ROOT).digest("hex").slice(0, 12);
  let base: string;
  try {
    const cache = userCache();
    mkdirSync(cache, { recursive: true, mode: 0o700 });
    base = privateDir(cache, "warpstart-lab");
  } catch {
    base = privateTempDir("warpstart-lab");
  }
  labHome = join(base, project);
  mkdirSync(labHome, { recursive: true });
  return labHome;
}
/** Where `sam build`, run in a template's folder, writes its artifacts and the built template. */
export const buildDirOf = (template: string) => join(dirname(resolve(template)), ".aws-sam/build");
/** The built template `sam build` writes for a source template. */
export const builtTemplateOf = (template: string) => join(buildDirOf(template), "template.yaml");
/**
 * A folder and each one above it, nearest first, as Node looks for node_modules and package.json:
 * up to `top` (included; from a folder outside it, that folder alone), else to the root.
 */
export function foldersUp(from: string, top?: string): string[] {
  const folders = [from];
  for (let dir = from; dir !== top && dir !== dirname(dir) && !(top !== undefined && relative(top, dir).startsWith("..")); ) {
    dir = dirname(dir);
    folders.push(dir);
  }
  return folders;
}

/** The SAM app folder of a template, built (…/.aws-sam/build/template.yaml) or not: where its samconfig.toml is. */
export const appDirOf = (template: string) => {
  const dir = dirname(resolve(template));
  return dir.endsWith(`${sep}.aws-sam${sep}build`) ? dirname(dirname(dir)) : dir;
};
/** The folder of a SAM app whose files the lab loads into its local AWS (docs/lab.md#the-seed-folder): beside template.yaml, as LocalStack's init hooks sit beside a project. */
export const seedDirOf = (template: string) => join(appDirOf(template), "local-aws");
/** The template of what a command reads when none is named: template.yaml in the folder it runs in, as `sam` reads it. */
export const DEFAULT_TEMPLATE = "template.yaml";
/** The template `sam` reads in the current folder when none is named: the first of template.yaml, .yml and .json there. */
export const samTemplateHere = () => ["template.yaml", "template.yml", "template.json"].find((name) => existsSync(name)) ?? DEFAULT_TEMPLATE;
/** Where a SAM app keeps a function's own sample event (SAM apps keep theirs in events/): the event the lab sends it. */
export const sampleEventOf = (template: string, logicalId: string) => join(appDirOf(template), "events", `${logicalId}.json`);
/** What to run when an installed tool of scripts/setup.sh's `part` is missing: the setup every command runs, into the tools' home. */
export const setupHint = (part: string) =>
  `run \`${TOOLS_HOME === PACKAGE_ROOT ? "" : `WARPSTART_HOME=${TOOLS_HOME} `}bash ${join(PACKAGE_ROOT, "scripts/setup.sh")} ${part}\` (every warpstart command runs it for you)`;

/** A run's start time as a folder name: 2026-11-22-23-45-01. */
export function timestamp(date = new Date()): string {
  return date.toISOString().replace(/[:T]/g, "-").slice(0, 19);
}
