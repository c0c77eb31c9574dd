// The custom runtimes' own startup caches (core/runtimes.mts, StartupCache: Bun's transpiler
// cache), warmed with this machine's binary of the same version. On Lambda the task root is
// read-only: a cache that misses is rebuilt in memory at every cold start and never saved, so what
// the build leaves is what every start gets. The build warms the cache of the runtime a function
// runs on; the lab's runtime matrix, which runs it on the others too, warms theirs when it needs them.
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { execOwned } from "../core/processes.mts";
import { CUSTOM_RUNTIMES, type CustomRuntime, ensureInstalled, type Runtime, type StartupCache } from "../core/runtimes.mts";
import { labOverlayOf } from "../emulation/function-environment.mts";

/** Runs the host binary with its cache variable set; the process may fail (no AWS at build time): the cache is written first. */
async function runWarm(runtime: CustomRuntime, cache: StartupCache, cacheDir: string, file: string): Promise<void> {
  ensureInstalled(runtime);
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

/** Warms the startup cache of the custom runtime the function runs on (by name), if it has one, into the artifact: Lambda gets it. */
export async function warmStartupCache(artifactDir: string, handlerFile: string, deployedRuntime: string): Promise<void> {
  const runtime = CUSTOM_RUNTIMES.find((candidate) => candidate.name === deployedRuntime);
  if (!runtime?.startupCache) return;
  const cacheDir = join(artifactDir, runtime.startupCache.dir);
  await runWarm(runtime, runtime.startupCache, cacheDir, join(artifactDir, handlerFile));
  // Bun caches only sources of 50 KB and more: a small handler leaves nothing worth shipping.
  if (existsSync(cacheDir) && readdirSync(cacheDir).length === 0) rmSync(cacheDir, { recursive: true });
}

/**
 * For the lab, which runs a function on `runtime` though it was built for another: that runtime's
 * startup cache, warmed once into the lab's overlay beside the artifact (never shipped; kept even
 * when empty, as the sign it was warmed).
 */
export async function warmLabStartupCache(runtime: Runtime, artifactDir: string, handlerFile: string | null): Promise<void> {
  if (runtime.kind !== "custom" || !runtime.startupCache || handlerFile === null) return;
  const { dir } = runtime.startupCache;
  if (existsSync(join(artifactDir, dir)) || existsSync(join(labOverlayOf(artifactDir), dir))) return;
  await runWarm(runtime, runtime.startupCache, join(labOverlayOf(artifactDir), dir), join(artifactDir, handlerFile));
}
