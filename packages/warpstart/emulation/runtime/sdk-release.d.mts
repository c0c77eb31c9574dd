// The types of sdk-release.mjs (plain JavaScript: scripts/sync-sdk-trees.mjs runs it on any Node).
type RuntimeConfig = { sdkVersion: string; notInRuntime?: string[] };
export function runtimeCandidates(name: string, versions: string[], runtimeConfig: RuntimeConfig): string[];
export function fitsRuntime(peers: Record<string, string> | null | undefined, runtimeConfig: RuntimeConfig): boolean;
export function runtimeRelease(
  name: string,
  versions: string[],
  runtimeConfig: RuntimeConfig,
  peersOf: (version: string) => Record<string, string> | null | undefined,
): string | null;
