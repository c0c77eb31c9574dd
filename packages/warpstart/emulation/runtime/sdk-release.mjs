// Which release of an @aws-sdk/* package a Lambda Node.js runtime carries. A runtime ships the AWS
// SDK v3 as of one SDK release (config.sdkVersion of emulation/runtime/<runtime>/package.json, with
// its source), every package of the SDK then. Since late 2025 not every package is released with
// every SDK release, and some (util-dynamodb, core) have version lines of their own, so a package's
// release is its highest one at or below the SDK release whose peers (util-dynamodb's
// client-dynamodb) that release satisfies (npm's publish dates here are not reliable); one the SDK
// had dropped by then is listed in config.notInRuntime (util-stream-node stopped at 3.374.0), and the
// runtime does not carry it.
// Plain JavaScript: scripts/sync-sdk-trees.mjs runs it on whichever Node npm runs on.
import semver from "semver";

/**
 * The releases of a package a runtime may carry, best first: those at or below its SDK release; none
 * when the runtime's config says the package had left the SDK by then.
 */
export function runtimeCandidates(name, versions, runtimeConfig) {
  if ((runtimeConfig.notInRuntime ?? []).includes(name)) return [];
  const { sdkVersion } = runtimeConfig;
  return versions.filter((version) => semver.valid(version) && !semver.prerelease(version) && semver.lte(version, sdkVersion)).sort(semver.rcompare);
}

/** Whether a release's peer dependencies (util-dynamodb's client-dynamodb) accept the runtime's SDK release. */
export function fitsRuntime(peers, runtimeConfig) {
  return Object.entries(peers ?? {}).every(([peer, range]) => !peer.startsWith("@aws-sdk/") || semver.satisfies(runtimeConfig.sdkVersion, range));
}

/**
 * The release of a package a runtime carries, from the versions npm has of it and the peer
 * dependencies of one of them (`peersOf`, asked only of the candidates); null when the runtime
 * carries none (no such release, or the runtime's config says it had left the SDK).
 */
export function runtimeRelease(name, versions, runtimeConfig, peersOf) {
  return runtimeCandidates(name, versions, runtimeConfig).find((version) => fitsRuntime(peersOf(version), runtimeConfig)) ?? null;
}
