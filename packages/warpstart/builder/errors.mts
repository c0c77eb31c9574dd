/** What stops a function's build, in a line a user acts on (esbuild's errors, a Handler without a source, a failed install). */
export class BuildError extends Error {
  override name = "BuildError";
}
