// The pinned tools only some runs need (Lambda's arm64 Node and qemu for Warp's arm64 code cache,
// the Node of each managed runtime but nodejs22.x's, the runtime matrix's Deno and Bun, Artillery), installed the first time a run needs them
// by scripts/setup.sh's part for each, its progress on stderr: a command never downloads what it
// does not use.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { PACKAGE_ROOT } from "./paths.mts";

/** The parts of scripts/setup.sh a run may add to the default ones. */
export type OnDemandPart = "arm64" | `node${18 | 20 | 24}` | `node${18 | 20 | 24}-arm64` | "runtimes" | "runtimes-arm64" | "hyperfine" | "artillery";

/** Runs scripts/setup.sh for `part` (a no-op once it is installed); throws if it fails. */
export function installPart(part: OnDemandPart): void {
  // The machine's own tools (sha256sum, apt-get...) on PATH whatever the caller's PATH is.
  const env = { ...process.env, PATH: [process.env.PATH, "/usr/local/bin", "/usr/bin", "/bin"].filter(Boolean).join(":") };
  const run = spawnSync("/bin/bash", [join(PACKAGE_ROOT, "scripts/setup.sh"), part], { stdio: ["ignore", 2, 2], env });
  if (run.status !== 0) throw new Error(`installing ${part} failed (bash scripts/setup.sh ${part}: exit ${run.status ?? run.signal}): see above`);
}
