// What `npm pack` (and `npm publish`) ship is JavaScript: an app's Node strips no types in
// node_modules. Before packing (prepack), tsc writes each module's .mjs and .d.mts beside its
// .mts (tsconfig.build.json), and package.json's exports name them; after (postpack), both are
// undone, so that this checkout goes on running its TypeScript.
//   node scripts/pack.mjs before|after
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const manifest = join(root, "package.json");
const source = join(root, ".package.source.json");
const emitted = join(root, ".package.emitted.json");

function before() {
  const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin/tsc");
  const listed = execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json"), "--listEmittedFiles"], { encoding: "utf8" });
  writeFileSync(emitted, JSON.stringify(listed.split("\n").flatMap((line) => (line.startsWith("TSFILE: ") ? [line.slice(8)] : []))));
  const text = readFileSync(manifest, "utf8");
  writeFileSync(source, text);
  const pkg = JSON.parse(text);
  pkg.exports = Object.fromEntries(
    Object.entries(pkg.exports).map(([subpath, target]) =>
      target.endsWith(".mts") ? [subpath, { types: target.replace(/\.mts$/, ".d.mts"), default: target.replace(/\.mts$/, ".mjs") }] : [subpath, target],
    ),
  );
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
}

function after() {
  if (existsSync(emitted)) for (const file of JSON.parse(readFileSync(emitted, "utf8"))) rmSync(file, { force: true });
  rmSync(emitted, { force: true });
  if (existsSync(source)) renameSync(source, manifest);
}

const step = { before, after }[process.argv[2]];
if (!step) throw new Error("usage: node scripts/pack.mjs before|after");
step();
