// The process-start comparison of the Deno/Bun/Node study, on our workload: hyperfine (Debian's
// package) times each runtime starting, importing a built handler (its INIT, STS call included)
// and exiting, and the same with an empty handler (the study's own measure). The handler runs
// from a task root as the lab prepares it (so a custom runtime finds no SDK to borrow), with the
// runtime's own variables, the function's own, and, on a managed runtime, its layers and the Node
// flags Lambda starts it with. Its JSON export (all commands) is kept
// beside results.json.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { builtHandlerFile } from "../builder/handler.mts";
import { bootstrapVariables } from "../builder/runtime-layer.mts";
import { thrownIn } from "../core/errors.mts";
import { PACKAGE_ROOT, toolPath } from "../core/paths.mts";
import { execOwned } from "../core/processes.mts";
import type { Runtime } from "../core/runtimes.mts";
import { installPart } from "../core/tools.mts";
import { type FunctionSpec, functionEnvironment, type LocalServices, prepareTaskRoot, removeTaskRoot } from "../emulation/function-environment.mts";
import type { ServedFunction } from "../lab/emulator/lambda-service.mts";
import type { ProcessStart } from "./results.mts";

const run = execOwned;
const IMPORTER = join(PACKAGE_ROOT, "bench/import-handler.mjs");
/** Debian's hyperfine as the setup part unpacks it, for a machine that has none on PATH. */
const OWN_HYPERFINE = toolPath("tools/hyperfine/usr/bin/hyperfine");

interface StartCase {
  /** The cell's label, e.g. "Optimized (deno)", and its name (without the runtime). */
  label: string;
  name: string;
  runtime: Runtime;
  /** The handler file in its task root. */
  handlerFile: string;
  memoryMb: number;
}

export interface StartCell {
  label: string;
  name: string;
  runtime: Runtime;
  /** The artifact, its handler (as the template names it) and the handler module in it, e.g. src/functions/identity/index.mjs. */
  codeDir: string;
  handler: string;
  handlerFile: string;
  /** A managed runtime's function's layers, as the lab serves them (a custom runtime starts its binary directly). */
  optDir?: string;
  memoryMb: number;
  /** Its environment variables as the lab evaluated them. */
  variables?: Record<string, string>;
}

/** The study's baseline: a handler that does nothing, on each runtime. */
export const EMPTY_HANDLER = {
  name: "Empty",
  codeDir: join(PACKAGE_ROOT, "bench/empty-handler"),
  handler: "index.handler",
  handlerFile: "index.mjs",
  memoryMb: 512,
};

/** A lab function as a process-start cell. */
export function startCell(label: string, name: string, fn: ServedFunction): StartCell {
  return {
    label,
    name,
    runtime: fn.runsOn,
    codeDir: fn.codeDir,
    handler: fn.handler,
    handlerFile: builtHandlerFile(fn),
    optDir: fn.runsOn.kind === "managed" ? fn.optDir : undefined,
    memoryMb: fn.memoryMb,
    variables: fn.variables,
  };
}

/** The command that starts `runtime`, imports the handler and exits (a custom runtime with its bootstrap's arguments). */
function startCommand(startCase: StartCase): string[] {
  const { runtime } = startCase;
  // A Warp build's code cache is V8's under those flags: without them it is rejected.
  const runtimeArgs = runtime.kind === "custom" ? runtime.args : runtime.nodeFlags(startCase.memoryMb);
  return [startCase.runtime.hostBinary, ...runtimeArgs, IMPORTER, startCase.handlerFile];
}

/** Shell quoting for hyperfine's command strings (it splits them itself with --shell=none). */
const quote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`);

let hyperfineBinary: string | undefined;

/** hyperfine's version: the machine's hyperfine, else the setup part's, installed now (setup.sh says so) when it is not yet. */
export async function hyperfineVersion(): Promise<string> {
  if (!hyperfineBinary) {
    hyperfineBinary = await run("hyperfine", ["--version"]).then(
      () => "hyperfine",
      () => {
        installPart("hyperfine");
        return OWN_HYPERFINE;
      },
    );
  }
  const { stdout } = await run(hyperfineBinary, ["--version"]);
  return stdout.trim();
}

/**
 * Checks each command once (a cell that cannot run is reported with its error, not timed), then
 * times the rest with hyperfine, every handler calling `services`' STS at INIT.
 */
export async function measureProcessStart(
  cells: StartCell[],
  services: LocalServices,
  options: { runs: number; warmup: number; exportFile: string },
): Promise<ProcessStart> {
  const tool = await hyperfineVersion();
  const specs: FunctionSpec[] = cells.map(({ label, codeDir, handler, runtime, memoryMb, optDir }) => ({
    name: label.replace(/[^\w-]+/g, "-"),
    codeDir,
    handler,
    memoryMb,
    runtime,
    optDir,
  }));
  const taskRoots = specs.map(prepareTaskRoot);
  try {
    const cases = cells.map((cell, i) => {
      const { runtime } = cell;
      // Lambda's variables and the runtime's own, as its bootstrap sets them.
      const env = {
        ...functionEnvironment(specs[i]!, taskRoots[i]!, services, { variables: cell.variables }),
        ...bootstrapVariables(runtime, taskRoots[i]!),
      };
      return { label: cell.label, name: cell.name, runtime, handlerFile: join(taskRoots[i]!, cell.handlerFile), memoryMb: cell.memoryMb, env };
    });
    return await timeCommands(tool, cases, options);
  } finally {
    taskRoots.forEach(removeTaskRoot);
  }
}

/** What a failed start says: the error it threw (Node prints the source line above it), else its first lines. */
const errorLine = (output: string) => thrownIn(output) ?? output.trim().split("\n").slice(0, 3).join(" ");

/** One hyperfine run per command (each has its own variables), exported together as one JSON file. */
async function timeCommands(
  tool: string,
  cases: Array<StartCase & { env: Record<string, string> }>,
  options: { runs: number; warmup: number; exportFile: string },
): Promise<ProcessStart> {
  const failures: ProcessStart["failures"] = [];
  const results: ProcessStart["results"] = [];
  const exported: unknown[] = [];
  for (const startCase of cases) {
    const commandLine = startCommand(startCase);
    const [command, ...args] = commandLine;
    try {
      await run(command!, args, { env: startCase.env, timeout: 30_000 });
    } catch (error) {
      const { stderr, message } = error as { stderr?: string; message: string };
      failures.push({
        label: startCase.label,
        name: startCase.name,
        runtime: startCase.runtime.name,
        message: errorLine(stderr || message),
      });
      continue;
    }
    const file = `${options.exportFile}.part`;
    await run(
      hyperfineBinary ?? "hyperfine",
      [
        "--shell=none",
        "--style=none",
        "--runs",
        String(options.runs),
        "--warmup",
        String(options.warmup),
        "--export-json",
        file,
        "--command-name",
        startCase.label,
        commandLine.map(quote).join(" "),
      ],
      { env: startCase.env, maxBuffer: 16 * 2 ** 20 },
    );
    const [result] = (JSON.parse(readFileSync(file, "utf8")) as { results: HyperfineResult[] }).results;
    rmSync(file);
    exported.push(result);
    const ms = (seconds: number) => Math.round(seconds * 1e5) / 100;
    results.push({
      label: startCase.label,
      name: startCase.name,
      runtime: startCase.runtime.name,
      meanMs: ms(result!.mean),
      stddevMs: ms(result!.stddev ?? 0),
      medianMs: ms(result!.median),
      minMs: ms(result!.min),
      maxMs: ms(result!.max),
      runs: result!.times.length,
    });
  }
  writeFileSync(options.exportFile, `${JSON.stringify({ results: exported }, null, 2)}\n`);
  return { tool, runs: options.runs, warmup: options.warmup, results, failures };
}

interface HyperfineResult {
  command: string;
  mean: number;
  stddev: number | null;
  median: number;
  min: number;
  max: number;
  times: number[];
}
