// Code loading like Lambda's: a new execution environment reads its function's code from storage,
// not from memory (see docs/lab.md#code-loading for what the lab counts as code).
import { join } from "node:path";
import { VENV_BIN } from "../core/paths.mts";
import { execOwned } from "../core/processes.mts";
import { ensurePart } from "../core/tools.mts";

/**
 * Drops every file under `written` and `installed` (links to files followed) from the page cache:
 * the next read comes from storage. `written` files are synced first (a fresh copy's pages are
 * dirty, and dirty pages stay); `installed` ones need not be.
 */
export async function evictFromPageCache(written: string[], installed: readonly string[] = []): Promise<void> {
  ensurePart("moto"); // the venv's Python
  const args = installed.length > 0 ? [...written, "--installed", ...installed] : written;
  await execOwned(join(VENV_BIN, "python"), [join(import.meta.dirname, "page-cache.py"), ...args]);
}
