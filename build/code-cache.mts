// Warp's post-INIT V8 code cache: run one full INIT of the built artifact (the STS call against
// the local STS included) on the pinned Node 22 with the node flags the runtime uses for the
// function's memory size, then save V8's code cache of the SDK chunk, which by then holds every
// function INIT compiled. A second INIT checks that V8 accepts it.
import { execFile } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { functionEnvironment } from "../lab/execution-environment.mts";
import { startLocalSts } from "../lab/sts/local-sts.mts";
import { RUNTIMES } from "./runtimes.mts";

const CHILD = join(import.meta.dirname, "code-cache-child.mjs");
const run = promisify(execFile);

/** Runs the artifact's INIT in a fresh process; "write" saves the cache, "status" prints what V8 did with it. */
async function init(outdir: string, memoryMb: number, mode: "write" | "status", services: { stsEndpoint: string; caFile: string }, extraFlags: string[] = []): Promise<string> {
  // Made for nodejs22.x, the template's default runtime: a V8 cache is only good for its own V8.
  const runtime = RUNTIMES.node22;
  const env = functionEnvironment({ name: "code-cache", codeDir: outdir, handler: "index.handler", memoryMb, runtime }, outdir, services);
  const { stdout } = await run(runtime.hostBinary, [...runtime.nodeFlags(memoryMb), ...extraFlags, CHILD, mode, outdir], { env, timeout: 30_000 });
  return stdout.trim();
}

export async function makeCodeCache(outdir: string, memoryMb: number): Promise<{ bytes: number }> {
  const sts = await startLocalSts();
  const services = { stsEndpoint: sts.endpoint, caFile: sts.caFile };
  try {
    await init(outdir, memoryMb, "write", services);
    const status = await init(outdir, memoryMb, "status", services);
    if (status !== "accepted") throw new Error(`V8 did not accept the code cache it just made (status: ${status}); is the build running on the pinned Node 22?`);
    return { bytes: statSync(join(outdir, "sdk.cache")).size };
  } finally {
    await sts.stop();
  }
}
