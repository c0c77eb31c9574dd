// For state with no event to wait on (process tables, an emulator's counters): poll until it holds.

/** Resolves once `condition` holds, checking every 50 ms; rejects after `ms` with `what` (evaluated then). */
export async function eventually(what: string | (() => string), condition: () => boolean, ms = 10_000): Promise<void> {
  for (const deadline = Date.now() + ms; !condition(); await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${typeof what === "string" ? what : what()}`);
  }
}
