// What every layer says of an error it caught.

/** A line of a process's output that names an error it threw (Node prints "TypeError: ..." at its start). */
export const THROWN_LINE = /^\s*\w*Error\b/;

/** The last error a process's output names, trimmed; undefined: none. */
export const thrownIn = (output: string) =>
  output
    .split("\n")
    .findLast((line) => THROWN_LINE.test(line))
    ?.trim();

/** The message of anything thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
