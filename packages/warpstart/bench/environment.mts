// What a result depends on besides the code: tool versions and the machine, recorded in
// every results.json so numbers are never compared across different setups by accident.

import { readFileSync } from "node:fs";
import { cpus, hostname, totalmem } from "node:os";
import { join } from "node:path";
import { version as esbuildVersion } from "esbuild";
import { WARPSTART_TREE } from "../builder/sdk-tree.mts";
import { PACKAGE_ROOT } from "../core/paths.mts";
import { type ManagedRuntime, RUNTIMES, type Runtime } from "../core/runtimes.mts";
import { runtimeDirOf } from "../emulation/runtime-sdk.mts";
import type { BenchResults } from "./results.mts";

const versionOf = (manifest: string): string => (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;

/** Versions of the local tools, with each runtime measured (tools/runtimes; a runtime given by path: its path). */
export function localVersions(runtimes: Runtime[] = []): Record<string, string> {
  // The managed runtimes measured (nodejs22.x, the template's, when none is named): each one's client and SDK copy.
  const managed = (runtimes.length ? runtimes : [RUNTIMES.node22]).filter((runtime): runtime is ManagedRuntime => runtime.kind === "managed");
  // The clients of the SDK tree Bundled bundles (published/), at the versions installed there.
  const published = WARPSTART_TREE;
  const sdk = Object.keys((JSON.parse(readFileSync(join(published, "package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies).filter(
    (name) => name.startsWith("@aws-sdk/client-"),
  );
  return {
    ...Object.fromEntries(runtimes.map((runtime) => [`runtime ${runtime.name}`, runtime.version ?? runtime.hostBinary])),
    "node (bench, build)": process.version,
    ...Object.fromEntries(sdk.map((name) => [name, versionOf(join(published, "node_modules", name, "package.json"))])),
    ...Object.fromEntries(
      managed.flatMap((runtime) => [
        [`@aws-sdk/* (${runtime.lambdaRuntime}'s copy, Raw)`, versionOf(join(runtimeDirOf(runtime), "node_modules/@aws-sdk/client-sts/package.json"))],
        [`aws-lambda-ric (${runtime.lambdaRuntime})`, versionOf(join(runtimeDirOf(runtime), "node_modules/aws-lambda-ric/package.json"))],
      ]),
    ),
    esbuild: esbuildVersion,
    emulator: `warpstart-lab ${versionOf(join(PACKAGE_ROOT, "package.json"))}`,
  };
}

export function machine(): BenchResults["machine"] {
  const cores = cpus();
  return {
    platform: process.platform,
    arch: process.arch,
    cpuModel: cores[0]?.model.trim() ?? "unknown",
    cpuCount: cores.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    hostname: hostname(),
  };
}
