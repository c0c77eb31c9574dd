// Replaces @smithy/core's shared-ini-file-loader/readFile.js in Warp builds (build.mts): a
// Lambda function has no ~/.aws/config or ~/.aws/credentials, so every read the SDK's config
// resolution attempts during INIT ends in ENOENT. Answering that without fs spares loading
// fs/promises and the file system calls. Same exports as the original module.
export const filePromises: Record<string, Promise<string>> = {};
export const fileIntercept: Record<string, Promise<string>> = {};

export const readFile = (path: string): Promise<string> =>
  fileIntercept[path] ??
  Promise.reject(Object.assign(new Error(`ENOENT: no such file or directory, open '${path}' (no shared config files on Lambda)`), { code: "ENOENT" }));
