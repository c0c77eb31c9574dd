// What every command of the project does the same way: bad flags exit 2 with the usage, other
// failures exit 1 with one line, a run's output folder is named by its start time, and a
// foreground command cleans up on Ctrl-C, SIGTERM or a closed terminal (SIGHUP).
import { relative } from "node:path";
import { type ParseArgsConfig, parseArgs } from "node:util";
import type { SamTemplate } from "./template.mts";

/** A mistake in the command line: the message, then the usage, exit 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** node:util parseArgs, with a mistake in the command line (an unknown flag, a missing value) a UsageError. */
export function parseCommandLine<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}

/** The message of anything thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs a command's main; exits with what it returns, 2 on a UsageError (with the usage), 1 on anything else. */
export function runCommand(usage: string, main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof UsageError ? `error: ${error.message}\n\n${usage}` : `error: ${errorMessage(error)}`);
      process.exit(error instanceof UsageError ? 2 : 1);
    },
  );
}

/** A whole number flag from `min` (undefined when absent); a UsageError otherwise. */
export function wholeNumber(flag: string, raw: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`--${flag} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ""}, not "${raw}"`);
  }
  return value;
}

/** The items of a comma-separated flag (--functions A,B), trimmed, empty ones left out. */
export function commaList(text: string): string[] {
  return text
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}

/** A UsageError naming the functions `names` has that the template does not, and the ones it has. */
export function assertFunctionsOf(template: Pick<SamTemplate, "file" | "functions">, names: string[]): void {
  const unknown = names.filter((name) => !template.functions.some((fn) => fn.logicalId === name));
  if (unknown.length)
    throw new UsageError(
      `unknown function(s) ${unknown.join(", ")}; ${relative(process.cwd(), template.file)} has ${template.functions.map((fn) => fn.logicalId).join(", ")}`,
    );
}

/** A run's start time as a folder name: 2026-11-22-23-45-01. */
export function timestamp(date = new Date()): string {
  return date.toISOString().replace(/[:T]/g, "-").slice(0, 19);
}

const ENDING_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * Runs `cleanup` and exits `code` when the user or the system ends the command (Ctrl-C, SIGTERM,
 * a closed terminal). Returns a function that removes the handlers.
 */
export function onEndingSignal(cleanup: () => Promise<unknown>, code = 130): () => void {
  const end = () => void cleanup().finally(() => process.exit(code));
  for (const signal of ENDING_SIGNALS) process.once(signal, end);
  return () => {
    for (const signal of ENDING_SIGNALS) process.off(signal, end);
  };
}
