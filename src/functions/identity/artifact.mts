// Facts about the deployed artifact and the runtime, read once on the first invoke (not during
// INIT, so they never count in Init Duration). fs is fetched when called: an ES import of
// node:fs would make Node evaluate its lazy parts (fs/promises, streams, readline) at INIT.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Total size of the files in the handler's own folder tree: what was uploaded for it. */
export function artifactBytes(moduleUrl: string): number | null {
  try {
    const { readdirSync, statSync } = process.getBuiltinModule("node:fs");
    const dir = dirname(fileURLToPath(moduleUrl));
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .reduce((sum, entry) => sum + statSync(join(entry.parentPath, entry.name)).size, 0);
  } catch {
    return null;
  }
}

/** When the runtime was built, as the modification time of its folder (/var/runtime on Lambda). */
export function runtimeBuildDate(runtimeDir: string | undefined): string | null {
  if (!runtimeDir) return null;
  try {
    return process.getBuiltinModule("node:fs").statSync(runtimeDir).mtime.toISOString();
  } catch {
    return null;
  }
}
