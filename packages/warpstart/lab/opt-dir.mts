// A custom runtime's /opt for the lab's environments, read-only as on Lambda: the layer `sam build`
// made with the host's binary in place of the layer's Linux arm64 one. A managed runtime's (the
// app's own layers) is emulation/function-environment.mts prepareLayersDir.
import { randomBytes } from "node:crypto";
import { chmodSync, cpSync, symlinkSync } from "node:fs";
import { join, relative } from "node:path";
import { buildRuntimeLayer } from "../builder/runtime-layer.mts";
import { ownedDir } from "../core/processes.mts";
import type { CustomRuntime } from "../core/runtimes.mts";
import type { TemplateLayer } from "../core/template.mts";
import { LAB_RUN_DIR, readOnlyCopy } from "../emulation/function-environment.mts";

/**
 * A custom runtime's stand-in for /opt under .lab/run/<owner>/opt/<runtime>-<id>, read-only as on Lambda: the
 * layer `sam build` made, with bin/<binary> pointing at the host's binary of the same version
 * (the layer's own is Linux arm64); for a runtime given by path, a layer built here.
 */
export async function prepareOptDir(runtime: CustomRuntime, layers: TemplateLayer[]): Promise<string> {
  const optDir = join(ownedDir(LAB_RUN_DIR), "opt", `${runtime.name}-${randomBytes(4).toString("hex")}`);
  const layer = layers.find((candidate) => candidate.logicalId === runtime.layer);
  if (layer) {
    const binary = join(layer.contentDir, "bin", runtime.binaryName);
    cpSync(layer.contentDir, optDir, { recursive: true, filter: (source) => source !== binary });
    symlinkSync(runtime.hostBinary, join(optDir, relative(layer.contentDir, binary)));
  } else {
    await buildRuntimeLayer(runtime, optDir, { binary: "host" });
  }
  chmodSync(optDir, 0o555);
  return optDir;
}

/**
 * An environment's own copy of an opt dir (the binary stays a link): the lab runs as root, whom a
 * read-only directory does not stop, so a runtime that writes to its cache would otherwise warm it
 * for the environments after it; on Lambda every environment starts from the layer as shipped.
 */
export function copyOptDir(optDir: string): string {
  return readOnlyCopy(optDir, `${optDir}-env`);
}
