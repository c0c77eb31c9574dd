// What a function's own layers provide (AWS::Serverless::LayerVersion of its template): on Lambda a
// layer's nodejs/node_modules and nodejs/node<major>/node_modules are on the runtime's module path
// (/opt), so a package one of them provides stays out of the function's bundle and is resolved there
// at run time, as the function's owner meant by putting it in a layer.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Plugin } from "esbuild";
import type { TemplateLayer } from "../core/template.mts";

/** The package names a folder of installed packages holds (scoped ones as @scope/name). */
function installedIn(nodeModules: string): string[] {
  if (!existsSync(nodeModules)) return [];
  return readdirSync(nodeModules, { withFileTypes: true }).flatMap((entry) => {
    if (!entry.isDirectory() || entry.name.startsWith(".")) return [];
    if (!entry.name.startsWith("@")) return [entry.name];
    return readdirSync(join(nodeModules, entry.name)).map((name) => `${entry.name}/${name}`);
  });
}

/** The packages a package.json's dependencies and its package-lock.json beside it name (a lock names what they depend on too). */
function manifestPackages(dir: string): string[] {
  const manifest = join(dir, "package.json");
  if (!existsSync(manifest)) return [];
  const { dependencies = {} } = JSON.parse(readFileSync(manifest, "utf8")) as { dependencies?: Record<string, string> };
  const lock = join(dir, "package-lock.json");
  const locked = existsSync(lock) ? Object.keys((JSON.parse(readFileSync(lock, "utf8")) as { packages?: Record<string, unknown> }).packages ?? {}) : [];
  return [...Object.keys(dependencies), ...locked.flatMap((key) => /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(key)?.[1] ?? [])];
}

/**
 * The packages a function's layers provide, read from each layer's content as its template names it
 * (ContentUri): nodejs/package.json's, or the content's own package.json's where SAM's Node.js layer
 * builder (BuildMethod nodejs<major>.x) installs it into nodejs/node_modules, with their locks; and
 * what nodejs/node_modules and nodejs/node<major>/node_modules already hold.
 */
export function layerPackages(layers: TemplateLayer[]): string[] {
  const names = new Set<string>();
  for (const { contentDir } of layers) {
    for (const name of manifestPackages(contentDir)) names.add(name);
    const nodejs = join(contentDir, "nodejs");
    if (!existsSync(nodejs)) continue;
    for (const name of manifestPackages(nodejs)) names.add(name);
    for (const folder of readdirSync(nodejs)) {
      if (folder === "node_modules" || /^node\d+$/.test(folder)) {
        for (const name of installedIn(folder === "node_modules" ? join(nodejs, folder) : join(nodejs, folder, "node_modules"))) names.add(name);
      }
    }
  }
  return [...names].sort();
}

/**
 * A layer as sam build built it, in the first of `buildDirs` that holds it (SAM builds a template's
 * layers beside its functions: a Node.js layer's package.json installed into nodejs/node_modules),
 * else its content as the template names it.
 */
export function builtLayer(layer: TemplateLayer, buildDirs: string[]): TemplateLayer {
  const built = buildDirs.map((dir) => join(dir, layer.logicalId)).find((dir) => existsSync(dir));
  return built ? { ...layer, contentDir: built } : layer;
}

/**
 * A package the function imports by name that its own packages do not provide, where it has layers:
 * left to them at run time, as Lambda's module path finds it there (what a layer's packages depend on
 * is installed beside them, and a lock may not name it). Each name left so goes into `left`.
 */
export function leftToLayers(left: Set<string>): Plugin {
  return {
    name: "left-to-layers",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        // Only a resolve of the code's own: one a plugin asks (this one's, another's) is left to it, or two would ask each other forever.
        if (args.pluginData !== undefined) return undefined;
        const found = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: "left-to-layers" });
        if (found.errors.length === 0) return found;
        left.add(args.path);
        return { path: args.path, external: true };
      });
    },
  };
}
