// Writes a folder's package-lock.json from this repository's: the exact tree of the dependencies its
// package.json names, as the repository resolved and tested them, so that `npm ci` installs them
// from npm's cache with no registry to ask (a lockfile needs none to resolve; a package's
// dependencies would).
//   node scripts/pin-dependencies.mjs FOLDER...
//   node scripts/pin-dependencies.mjs --specs FOLDER   (name@version of each package of that tree, a line each:
//                                                     what scripts/setup.sh's npm-cache part caches)
// Run by the demo app's `dependencies` script after every npm command that changes node_modules,
// for the sam init starter; its test holds the file to what this makes of the lockfile.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const workspace = join(root, "../..");
const here = relative(workspace, root).split("\\").join("/");

/** The lockfile path a dependency `name` of the entry at `from` resolves to in `packages`, as Node looks it up: its own node_modules, then each folder above. */
function resolved(packages, name, from) {
  for (let at = from; ; ) {
    const path = `${at ? `${at}/` : ""}node_modules/${name}`;
    if (packages[path]) return path;
    if (!at) throw new Error(`${name} (a dependency of ${from}) is not in package-lock.json: run npm install`);
    const cut = at.lastIndexOf("/node_modules/");
    at = cut >= 0 ? at.slice(0, cut) : "";
  }
}

/** Where a lockfile path lands in the dependencies' own tree: the workspace's node_modules and the package's are both its top. */
const inTree = (path) => (path.startsWith(`${here}/`) ? path.slice(here.length + 1) : path);

/** The lockfile's text for a folder: the dependencies its package.json names and theirs, as the workspace's lockfile has them. */
export function lockText(folder) {
  const manifest = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"));
  const { packages } = JSON.parse(readFileSync(join(workspace, "package-lock.json"), "utf8"));
  const tree = {};
  const queue = Object.keys(manifest.dependencies).map((name) => resolved(packages, name, here));
  while (queue.length > 0) {
    const path = queue.shift();
    const target = inTree(path);
    if (tree[target]) {
      if (tree[target].version !== packages[path].version)
        throw new Error(`${target}: two versions land there (${tree[target].version}, ${packages[path].version})`);
      continue;
    }
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = packages[path];
    tree[target] = entry;
    for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
      try {
        queue.push(resolved(packages, name, path));
      } catch (error) {
        if (!entry.optionalDependencies?.[name]) throw error; // another platform's binary: npm left it out
      }
    }
  }
  const lock = {
    name: manifest.name,
    lockfileVersion: 3,
    requires: true,
    packages: {
      "": { name: manifest.name, dependencies: manifest.dependencies, devDependencies: manifest.devDependencies },
      ...Object.fromEntries(Object.entries(tree).sort(([a], [b]) => a.localeCompare(b))),
    },
  };
  return `${JSON.stringify(lock, null, 2)}\n`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  if (process.argv[2] === "--specs") {
    const { packages } = JSON.parse(lockText(process.argv[3]));
    // Another platform's binary is never installed here: npm needs none of its records.
    const here = ({ os, cpu }) => (!os || os.includes(process.platform)) && (!cpu || cpu.includes(process.arch));
    for (const [path, entry] of Object.entries(packages))
      if (path && here(entry)) console.log(`${path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length)}@${entry.version}`);
  } else for (const folder of process.argv.slice(2)) writeFileSync(join(folder, "package-lock.json"), lockText(folder));
}
