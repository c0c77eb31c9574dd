// The custom runtimes' own startup caches (core/runtimes.mts, StartupCache: Bun's transpiler
// cache), warmed at build time with this machine's binary of the same version. On Lambda the task
// root is read-only: a cache that misses is rebuilt in memory at every cold start and never saved,
// so what the build leaves is what every start gets.
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { execOwned } from "../core/processes.mts";
import { assertInstalled, CUSTOM_RUNTIMES, type CustomRuntime, type StartupCache } from "../core/runtimes.mts";

/** Runs the host binary with its cache variable set; the process may fail (no AWS at build time): the cache is written first. */
async function runWarm(runtime: CustomRuntime, cache: StartupCache, cacheDir: string, file: string): Promise<void> {
  assertInstalled(runtime);
  // An unreachable endpoint ends a handler's INIT at once, and never lets it reach real AWS.
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    ...runtime.env,
    [cache.variable]: cacheDir,
    AWS_ENDPOINT_URL: "https://127.0.0.1:9",
    AWS_REGION: "us-east-1",
  };
  await execOwned(runtime.hostBinary, [...runtime.args, file], { env, timeout: 60_000 }).catch(() => undefined);
}

/**
 * Warms every custom runtime's startup cache by loading the artifact's handler: into the artifact
 * for the runtime the function runs on (Lambda gets it), into `labDir` for the others (only the
 * lab's runtime matrix runs the function on them; a nodejs22.x artifact carries no Bun cache).
 */
export async function warmStartupCaches(artifactDir: string, handlerFile: string, runsOn: string, labDir: string): Promise<void> {
  for (const runtime of CUSTOM_RUNTIMES) {
    if (!runtime.startupCache) continue;
    const cacheDir = join(runtime.name === runsOn ? artifactDir : labDir, runtime.startupCache.dir);
    await runWarm(runtime, runtime.startupCache, cacheDir, join(artifactDir, handlerFile));
    // Bun caches only sources of 50 KB and more: a small handler leaves nothing worth shipping.
    if (existsSync(cacheDir) && readdirSync(cacheDir).length === 0) rmSync(cacheDir, { recursive: true });
  }
}
