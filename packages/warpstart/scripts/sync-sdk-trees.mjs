// Installs the package's SDK trees, as their lockfiles pin them:
//   node scripts/sync-sdk-trees.mjs [APP]
//   node scripts/sync-sdk-trees.mjs --only published|runtimes    (scripts/setup.sh's parts: one kind of tree)
// With APP (a folder: the demo app's `dependencies` script, which npm runs after every command that
// changes node_modules, `npm install @aws-sdk/client-<service>` included), first brings their
// manifests in step with APP's lockfile and package.json:
//   published/          warpstart's own SDK tree, for an app that installs none (builder/sdk-tree.mts):
//                       every @aws-sdk/* and @smithy/* package the lockfile installs at the top of
//                       node_modules (what the functions and every library they use reach:
//                       Powertools, lib-dynamodb, the X-Ray SDK...), at the lockfile's version
//   emulation/runtime/<runtime>/
//                       the stand-in for each managed runtime's /var/runtime (nodejs22.x, nodejs24.x):
//                       its runtime interface client, and each @aws-sdk/* package package.json names,
//                       at the release the runtime carries (emulation/runtime/sdk-release.mjs: its
//                       config.sdkVersion, or the highest release npm has below it); a package the
//                       runtime does not carry is listed in its config.notInRuntime, and Raw bundles it
// Plain JavaScript: npm runs it with whichever Node it runs on.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runtimeRelease } from "../emulation/runtime/sdk-release.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// Where the trees install: the package's home (scripts/setup.sh), its manifests placed there first; else the package's folder.
const home = process.env.WARPSTART_HOME ? resolve(process.env.WARPSTART_HOME) : root;
const only = process.argv[2] === "--only" ? process.argv[3] : null;
const app = process.argv[2] && !only ? resolve(process.argv[2]) : null;
const readJson = (file, dir = root) => JSON.parse(readFileSync(join(dir, file), "utf8"));
const sorted = (object) => Object.fromEntries(Object.entries(object).sort(([a], [b]) => a.localeCompare(b)));

const SDK_PACKAGE = /^@(aws-sdk|smithy)\//;

/** Every SDK package the lockfile puts at the top of node_modules, at its version there. */
function lockedSdk() {
  const { packages = {} } = readJson("package-lock.json", app);
  return Object.fromEntries(
    Object.entries(packages)
      .map(([path, entry]) => [path.replace(/^node_modules\//, ""), entry])
      .filter(([name, entry]) => SDK_PACKAGE.test(name) && !name.includes("/node_modules/") && !entry.link)
      .map(([name, entry]) => [name, entry.version]),
  );
}

/** The SDK packages the app's package.json and its workspaces' name (dependencies and devDependencies): what the runtime's copy must hold. */
function declaredSdk() {
  const { workspaces = [] } = readJson("package.json", app);
  return [app, ...workspaces.map((folder) => join(app, folder))]
    .flatMap((dir) => {
      const { dependencies = {}, devDependencies = {} } = readJson("package.json", dir);
      return Object.keys({ ...dependencies, ...devDependencies });
    })
    .filter((name, i, all) => name.startsWith("@aws-sdk/") && all.indexOf(name) === i);
}

/** Rewrites a manifest's dependencies when they differ; says whether it did. */
function syncManifest(file, dependencies, extra = {}) {
  const manifest = readJson(file);
  const next = { ...manifest, dependencies: sorted(dependencies), ...extra };
  if (JSON.stringify(next) === JSON.stringify(manifest)) return false;
  writeFileSync(join(root, file), `${JSON.stringify(next, null, 2)}\n`);
  return true;
}

const publishedChanged = app !== null && syncManifest("published/package.json", lockedSdk());

// The project's npm (tools/node22) when it is there: lockfiles written and read by one npm.
const projectNpm = join(home, "tools/node22/node_modules/npm/bin/npm-cli.js");
const npm = (args, stdio = "inherit") =>
  existsSync(projectNpm) ? execFileSync(process.execPath, [projectNpm, ...args], { stdio }) : execFileSync("npm", args, { stdio });

/** The versions npm has of a package (none: the registry does not know it). */
function versionsOf(name) {
  try {
    return [JSON.parse(String(npm(["view", name, "versions", "--json"], "pipe")))].flat();
  } catch {
    return [];
  }
}

/** A release's peer dependencies (none: it has none, or npm does not say). */
function peersOf(name, version) {
  try {
    return JSON.parse(String(npm(["view", `${name}@${version}`, "peerDependencies", "--json"], "pipe")) || "{}");
  } catch {
    return {};
  }
}

/** The managed runtimes' stand-ins, each a folder of emulation/runtime/: nodejs24.x's first, whose runtime client nodejs22.x's borrows its native part from (installTree). */
const RUNTIME_TREES = ["emulation/runtime/node24", "emulation/runtime/node22"];

/** Brings a runtime's manifest in step with the SDK packages package.json names; says whether it changed. */
function syncRuntime(folder) {
  const runtime = readJson(`${folder}/package.json`);
  const config = { ...runtime.config, notInRuntime: [...(runtime.config.notInRuntime ?? [])] };
  const dependencies = { "aws-lambda-ric": runtime.dependencies["aws-lambda-ric"] };
  for (const name of declaredSdk()) {
    if (config.notInRuntime.includes(name)) continue;
    // A package's release is worked out once (npm asked), then kept in the manifest.
    const release = runtime.dependencies[name] ?? runtimeRelease(name, versionsOf(name), config, (version) => peersOf(name, version));
    if (release) dependencies[name] = release;
    else config.notInRuntime.push(name);
  }
  if (config.notInRuntime.length === 0) delete config.notInRuntime;
  else config.notInRuntime.sort();
  return syncManifest(`${folder}/package.json`, dependencies, { config });
}

const runtimesChanged = Object.fromEntries(RUNTIME_TREES.map((folder) => [folder, app !== null && syncRuntime(folder)]));

/** What each tree is for, in the line said before it downloads. */
const TREE_PURPOSE = { published: "the SDK bundled for an app that installs none, and the lab's SDK clients" };

/** A folder's size as du prints it (12M). */
const sizeOf = (dir) => {
  try {
    return execFileSync("du", ["-sh", dir], { encoding: "utf8" }).split("\t")[0];
  } catch {
    return "";
  }
};

/** What a tree is installed from: its manifest and its lockfile. */
function inputsDigest(folder) {
  const files = readdirSync(join(root, folder)).filter((name) => name === "package.json" || name === "package-lock.json");
  const hash = createHash("sha256");
  for (const file of files.sort()) hash.update(file).update(readFileSync(join(root, folder, file)));
  return hash.digest("hex");
}

/**
 * The runtime interface client's native part is built by its install script (cmake, curl, the C++
 * runtime client: a minute of CPU). nodejs22.x's client (3.3.0) has the very source of nodejs24.x's
 * (4.0.2): it takes the part built for that one, and builds its own only where the sources differ.
 */
function nativeClientBorrowed(folder) {
  if (!folder.endsWith("/node22")) return false;
  const ours = join(home, folder, "node_modules/aws-lambda-ric");
  const theirs = join(home, "emulation/runtime/node24/node_modules/aws-lambda-ric");
  const same = readFileSync(join(ours, "src/rapid-client.cc")).equals(readFileSync(join(theirs, "src/native/rapid-client.cc")));
  if (!same) return false;
  copyFileSync(join(theirs, "rapid-client.node"), join(ours, "dist/rapid-client.node"));
  return true;
}

const trees = [["published", publishedChanged], ...Object.entries(runtimesChanged)].filter(
  ([folder]) => only === null || (only === "published") === (folder === "published"),
);
for (const [folder, changed] of trees) {
  const stamp = join(home, folder, "node_modules/.warpstart-stamp");
  if (!changed && existsSync(stamp) && readFileSync(stamp, "utf8") === inputsDigest(folder)) continue; // installed from these very files
  // A changed manifest updates its lockfile (commit both); otherwise install exactly the lockfile.
  if (changed) console.error(`[sdk-trees] ${folder}/package.json now follows ${app}'s lockfile: installing`);
  else
    console.error(
      `[setup] downloading the SDK tree ${folder} into ${join(home, folder)} (${TREE_PURPOSE[folder] ?? "a managed runtime's client and SDK copy, for the lab"})`,
    );
  const borrows = folder.endsWith("/node22");
  const install = changed || !existsSync(join(root, folder, "package-lock.json")) ? "install" : "ci";
  npm([install, "--prefix", join(home, folder), "--no-audit", "--no-fund", "--loglevel=error", ...(borrows ? ["--ignore-scripts"] : [])]);
  if (borrows && !nativeClientBorrowed(folder)) npm(["rebuild", "aws-lambda-ric", "--prefix", join(home, folder), "--loglevel=error"]);
  writeFileSync(stamp, inputsDigest(folder));
  console.error(`[setup] installed: ${join(home, folder, "node_modules")} ${sizeOf(join(home, folder, "node_modules"))}`);
}
