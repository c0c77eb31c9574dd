// Code loading like Lambda's: a new execution environment reads its function's code from storage,
// not from memory (see docs/lab.md#code-loading for what the lab counts as code).
import { join } from "node:path";
import { VENV_BIN } from "../core/paths.mts";
import { execOwned } from "../core/processes.mts";

/** Drops every file under `paths` (links to files followed) from the page cache: the next read comes from storage. */
export async function evictFromPageCache(paths: string[]): Promise<void> {
  await execOwned(join(VENV_BIN, "python"), [join(import.meta.dirname, "page-cache.py"), ...paths]);
}
