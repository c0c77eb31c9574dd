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
 * The release of a package a runtime carries, from the versions npm has of it and the peer
 * dependencies of one of them (`peersOf`, asked only of the candidates); null when the runtime
 * carries none (no such release, or the runtime's config says it had left the SDK).
 */
export function runtimeRelease(name, versions, runtimeConfig, peersOf) {
  if ((runtimeConfig.notInRuntime ?? []).includes(name)) return null;
  const { sdkVersion } = runtimeConfig;
  const candidates = versions
    .filter((version) => semver.valid(version) && !semver.prerelease(version) && semver.lte(version, sdkVersion))
    .sort(semver.rcompare);
  const fits = (version) =>
    Object.entries(peersOf(version) ?? {}).every(([peer, range]) => !peer.startsWith("@aws-sdk/") || semver.satisfies(sdkVersion, range));
  return candidates.find(fits) ?? null;
}
