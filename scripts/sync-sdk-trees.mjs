// npm's `dependencies` script (package.json): runs after every npm command that changes
// node_modules, `npm install @aws-sdk/client-<service>` included. Keeps the project's two other
// SDK trees in step with the project's lockfile, then installs them:
//   patches/            the tree Optimized and Warp bundle: every @aws-sdk/* and @smithy/* package the
//                       lockfile installs at the top of node_modules (what the functions and every
//                       library they use reach: Powertools, lib-dynamodb, the X-Ray SDK...), at the
//                       lockfile's version, except the exact versions the patches/*.patch file names
//                       pin (patch-package applies them)
//   emulation/runtime/  the stand-in for the managed runtime's /var/runtime: each @aws-sdk/* package
//                       package.json names (the runtime ships the whole SDK) at the runtime's own SDK
//                       version (its package.json config.sdkVersion), for Raw; a package npm does not
//                       have at that version was not part of the SDK then (util-stream-node stopped at
//                       3.374.0), so the runtime has no copy of it: config.notInRuntime lists it once
//                       npm has said so, and Raw bundles it
// Plain JavaScript: npm runs it with whichever Node it runs on.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const readJson = (file) => JSON.parse(readFileSync(join(root, file), "utf8"));
const sorted = (object) => Object.fromEntries(Object.entries(object).sort(([a], [b]) => a.localeCompare(b)));

const SDK_PACKAGE = /^@(aws-sdk|smithy)\//;

/** Every SDK package the lockfile puts at the top of node_modules, at its version there. */
function lockedSdk() {
  const { packages = {} } = readJson("package-lock.json");
  return Object.fromEntries(
    Object.entries(packages)
      .map(([path, entry]) => [path.replace(/^node_modules\//, ""), entry])
      .filter(([name, entry]) => SDK_PACKAGE.test(name) && !name.includes("/node_modules/") && !entry.link)
      .map(([name, entry]) => [name, entry.version]),
  );
}

/** The SDK packages package.json names (dependencies and devDependencies): what the runtime's copy must hold. */
function declaredSdk() {
  const { dependencies = {}, devDependencies = {} } = readJson("package.json");
  return Object.keys({ ...dependencies, ...devDependencies }).filter((name) => name.startsWith("@aws-sdk/"));
}

/** `@smithy+core+3.41.0+001+lazy-zlib.patch` pins @smithy/core at 3.41.0. */
function patchedPackages() {
  const pins = {};
  for (const file of readdirSync(join(root, "patches")).filter((name) => name.endsWith(".patch"))) {
    const [scope, name, version] = file.split("+");
    pins[`${scope}/${name}`] = version;
  }
  return pins;
}

/** Rewrites a manifest's dependencies when they differ; says whether it did. */
function syncManifest(file, dependencies, extra = {}) {
  const manifest = readJson(file);
  const next = { ...manifest, dependencies: sorted(dependencies), ...extra };
  if (JSON.stringify(next) === JSON.stringify(manifest)) return false;
  writeFileSync(join(root, file), `${JSON.stringify(next, null, 2)}\n`);
  return true;
}

const pins = patchedPackages();
const patchTool = readJson("patches/package.json").dependencies["patch-package"];
const patchesChanged = syncManifest(
  "patches/package.json",
  { ...lockedSdk(), ...pins, "patch-package": patchTool },
  { overrides: sorted(Object.fromEntries(Object.keys(pins).map((name) => [name, `$${name}`]))) },
);

// The project's npm (tools/node22) when it is there: lockfiles written and read by one npm.
const projectNpm = join(root, "tools/node22/node_modules/npm/bin/npm-cli.js");
const npm = (args, stdio = "inherit") =>
  existsSync(projectNpm) ? execFileSync(process.execPath, [projectNpm, ...args], { stdio }) : execFileSync("npm", args, { stdio });

/** Whether the registry has `name` at `version` (asked once per package: the answer is kept in config.notInRuntime). */
function publishedAt(name, version) {
  try {
    return String(npm(["view", `${name}@${version}`, "version"], "pipe")).trim() === version;
  } catch {
    return false;
  }
}

const runtime = readJson("emulation/runtime/package.json");
const { sdkVersion, notInRuntime = [] } = runtime.config;
const inRuntime = [];
for (const name of declaredSdk()) {
  if (name in runtime.dependencies) inRuntime.push(name);
  else if (!notInRuntime.includes(name)) (publishedAt(name, sdkVersion) ? inRuntime : notInRuntime).push(name);
}
const runtimeChanged = syncManifest(
  "emulation/runtime/package.json",
  { "aws-lambda-ric": runtime.dependencies["aws-lambda-ric"], ...Object.fromEntries(inRuntime.map((name) => [name, sdkVersion])) },
  { config: { ...runtime.config, ...(notInRuntime.length ? { notInRuntime: notInRuntime.sort() } : {}) } },
);

/** What a tree is installed from: its manifest, its lockfile and (for patches/) the patches. */
function inputsDigest(folder) {
  const files = readdirSync(join(root, folder)).filter((name) => name === "package.json" || name === "package-lock.json" || name.endsWith(".patch"));
  const hash = createHash("sha256");
  for (const file of files.sort()) hash.update(file).update(readFileSync(join(root, folder, file)));
  return hash.digest("hex");
}

for (const [folder, changed] of [
  ["patches", patchesChanged],
  ["emulation/runtime", runtimeChanged],
]) {
  const stamp = join(root, folder, "node_modules/.warpstart-stamp");
  if (!changed && existsSync(stamp) && readFileSync(stamp, "utf8") === inputsDigest(folder)) continue; // installed from these very files
  // A changed manifest updates its lockfile (commit both); otherwise install exactly the lockfile.
  if (changed) console.error(`[sdk-trees] ${folder}/package.json now follows the project's lockfile: installing`);
  npm([changed ? "install" : "ci", "--prefix", join(root, folder), "--no-audit", "--no-fund", "--loglevel=error"]);
  writeFileSync(stamp, inputsDigest(folder));
}
