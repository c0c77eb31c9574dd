// A probe for what INIT loads: runs one built function once in a fresh Node 22 process started
// as the managed runtime starts it (flags, environment, read-only task root), importing the
// handler module directly (no runtime client in the process), and returns what it answered
// and which Node builtins its INIT loaded.
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NODE22 } from "../../core/paths.mts";
import { RUNTIMES } from "../../core/runtimes.mts";
import { type FunctionSpec, functionEnvironment, type LocalServices, prepareTaskRoot, removeTaskRoot } from "../../emulation/function-environment.mts";

const CHILD = join(import.meta.dirname, "invoke-once.mjs");
const RUN_TIMEOUT_MS = 30_000;

export type RunOnceResult =
  | { ok: true; readyMs: number; builtinsAtReady: string[]; response: { statusCode: number; body: string } }
  | { ok: false; errorType: string; errorMessage: string };

export async function runOnce(spec: FunctionSpec, event: unknown, services: LocalServices, extraNodeFlags: string[] = []): Promise<RunOnceResult> {
  const taskRoot = prepareTaskRoot(spec);
  const scratch = mkdtempSync(join(tmpdir(), "warpstart-run-"));
  const outFile = join(scratch, "result.json");
  const eventFile = join(scratch, "event.json");
  writeFileSync(eventFile, JSON.stringify(event));
  // stdout to a file, wherever the tests run: creating process.stdout then always loads the same
  // module (internal/fs/sync_write_stream), so whether INIT creates it shows in builtinsAtReady.
  const stdout = openSync(join(scratch, "stdout.log"), "w");
  try {
    const stderr: string[] = [];
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(NODE22, [...RUNTIMES.node22.nodeFlags(spec.memoryMb), ...extraNodeFlags, CHILD, eventFile, outFile], {
        cwd: taskRoot,
        env: functionEnvironment(spec, taskRoot, services),
        stdio: ["ignore", stdout, "pipe"],
      });
      const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
      child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk.toString())); // stdio[2] is a pipe
      child.on("error", reject);
      child.on("exit", (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    try {
      return JSON.parse(readFileSync(outFile, "utf8")) as RunOnceResult;
    } catch {
      return { ok: false, errorType: "Runtime.ExitError", errorMessage: `process exited (code ${exitCode}) without a result: ${stderr.join("").slice(-2000)}` };
    }
  } finally {
    closeSync(stdout);
    rmSync(scratch, { recursive: true, force: true });
    removeTaskRoot(taskRoot);
  }
}
