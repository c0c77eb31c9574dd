// The types of sdk-release.mjs (plain JavaScript: scripts/sync-sdk-trees.mjs runs it on any Node).
export function runtimeRelease(
  name: string,
  versions: string[],
  runtimeConfig: { sdkVersion: string; notInRuntime?: string[] },
  peersOf: (version: string) => Record<string, string> | null | undefined,
): string | null;
