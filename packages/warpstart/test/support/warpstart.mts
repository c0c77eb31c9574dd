// The `warpstart` program as a user runs it: Node 22 on cli/warpstart.mts, one command and its options.
import { join } from "node:path";
import { PACKAGE_ROOT } from "../../core/paths.mts";

export const WARPSTART = join(PACKAGE_ROOT, "cli/warpstart.mts");
