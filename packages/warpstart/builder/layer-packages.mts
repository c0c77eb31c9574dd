// What a function's own layers provide (AWS::Serverless::LayerVersion of its template): on Lambda a
// layer's nodejs/node_modules and nodejs/node<major>/node_modules are on the runtime's module path
// (/opt), so a package one of them provides stays out of the function's bundle and is resolved there
// at run time, as the function's owner meant by putting it in a layer.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
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

/**
 * The packages a function's layers provide, read from each layer's content as its template names it
 * (ContentUri): the dependencies of nodejs/package.json (what SAM's Node.js layer build installs) and
 * what nodejs/node_modules and nodejs/node<major>/node_modules already hold.
 */
export function layerPackages(layers: TemplateLayer[]): string[] {
  const names = new Set<string>();
  for (const { contentDir } of layers) {
    const nodejs = join(contentDir, "nodejs");
    if (!existsSync(nodejs)) continue;
    const manifest = join(nodejs, "package.json");
    if (existsSync(manifest)) {
      const { dependencies = {} } = JSON.parse(readFileSync(manifest, "utf8")) as { dependencies?: Record<string, string> };
      for (const name of Object.keys(dependencies)) names.add(name);
    }
    for (const folder of readdirSync(nodejs)) {
      if (folder === "node_modules" || /^node\d+$/.test(folder)) {
        for (const name of installedIn(folder === "node_modules" ? join(nodejs, folder) : join(nodejs, folder, "node_modules"))) names.add(name);
      }
    }
  }
  return [...names].sort();
}
