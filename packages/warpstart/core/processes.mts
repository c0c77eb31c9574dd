// Nothing the project starts outlives its owner, however the owner ends: SIGINT, SIGTERM, a
// closed terminal (SIGHUP), an uncaught exception, an out-of-memory kill or SIGKILL. Bookkeeping
// cannot promise that (a SIGKILLed owner runs no code), so every child is started under util-linux
// `setpriv --pdeathsig KILL`: the kernel kills it the moment its owner dies, a frozen (SIGSTOPped)
// one included. setpriv execs the command, so the child keeps the pid spawn() returned.
// The temporary folders an owner makes (read-only task roots, layer copies) live under a folder
// named after it; the next owner removes those whose owner is gone.
import { type ChildProcess, type ExecFileOptions, execFile, type SpawnOptions, spawn } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find((path) => existsSync(path));

/**
 * The command line that runs `command` as a child that dies with this process. On Linux that
 * needs util-linux's setpriv; elsewhere (macOS) the command runs as it is, and a killed owner
 * can leave it behind.
 */
function ownedCommand(command: string, args: string[]): [string, string[]] {
  if (process.platform !== "linux") return [command, args];
  if (!SETPRIV)
    throw new Error("setpriv is not installed: it ends the lab's processes with their owner; install util-linux (Debian: apt-get install util-linux)");
  return [SETPRIV, ["--pdeathsig", "KILL", "--", command, ...args]];
}

/** spawn(), with the child ending when this process does (ownedCommand). */
export function spawnOwned(command: string, args: string[], options: SpawnOptions): ChildProcess {
  const [owned, ownedArgs] = ownedCommand(command, args);
  return spawn(owned, ownedArgs, options);
}

const execFileAsync = promisify(execFile);

/** execFile(), promisified, with the child ending when this process does (ownedCommand). */
export function execOwned(
  command: string,
  args: string[],
  options: ExecFileOptions & { encoding?: BufferEncoding } = {},
): Promise<{ stdout: string; stderr: string }> {
  const [owned, ownedArgs] = ownedCommand(command, args);
  return execFileAsync(owned, ownedArgs, { ...options, encoding: "utf8" }) as Promise<{ stdout: string; stderr: string }>;
}

/** A process's start time in clock ticks since boot (Linux /proc), which tells a reused pid from its first owner. */
function startTime(pid: number): string | null {
  try {
    // Field 22 of /proc/<pid>/stat; the command name before it (field 2) may hold spaces.
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[19]!;
  } catch {
    return null;
  }
}

/** This process, as the name of the folders it owns: <pid>-<start time>. */
const OWNER = `${process.pid}-${startTime(process.pid) ?? "0"}`;

/** Whether the process an owner folder is named after still runs. */
function ownerAlive(owner: string): boolean {
  const [pid, started] = owner.split("-");
  if (!/^\d+$/.test(pid ?? "")) return false;
  if (process.platform !== "linux") {
    try {
      process.kill(Number(pid), 0);
      return true;
    } catch {
      return false;
    }
  }
  return startTime(Number(pid)) === started;
}

/**
 * Removes a folder tree whatever its modes (read-only copies: Lambda's /var/task and /opt are).
 * Another process may be removing the same tree (owners that start together sweep the same dead
 * owners' folders): what it removed first is gone, not an error.
 */
export function removeTree(dir: string): void {
  const writable = (folder: string) => {
    try {
      chmodSync(folder, 0o755);
      for (const entry of readdirSync(folder, { withFileTypes: true })) if (entry.isDirectory()) writable(join(folder, entry.name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  };
  writable(dir);
  rmSync(dir, { recursive: true, force: true });
}

const swept = new Set<string>();

/**
 * This process's own folder under `base` (created), after removing, once per base, the folders
 * of owners that are gone (a SIGKILLed lab could not remove its read-only copies).
 */
export function ownedDir(base: string): string {
  if (!swept.has(base)) {
    swept.add(base);
    // Only owners' folders (<pid>-<start time>): what else is there is not theirs to sweep.
    if (existsSync(base))
      for (const owner of readdirSync(base)) if (/^\d+-\d+$/.test(owner) && owner !== OWNER && !ownerAlive(owner)) removeTree(join(base, owner));
  }
  const dir = join(base, OWNER);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * A folder of this user's own, `<parent>/<name>` (mode 0700), for what must live outside the project.
 * A name in a shared folder (/tmp) is one another user can take first: a folder there that is not
 * this user's and private is refused, never used.
 */
export function privateDir(parent: string, name: string): string {
  const uid = process.getuid?.() ?? 0;
  const dir = join(parent, name);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const stat = lstatSync(dir);
  if (!stat.isDirectory() || stat.uid !== uid || (stat.mode & 0o077) !== 0) {
    const what = stat.isSymbolicLink()
      ? "a symbolic link"
      : stat.isDirectory()
        ? `a folder of uid ${stat.uid}, mode 0${(stat.mode & 0o777).toString(8)}`
        : "not a folder";
    throw new Error(`${dir} is ${what}, not a private folder of this user's (uid ${uid}): remove it, or set TMPDIR to a folder of your own`);
  }
  return dir;
}

/** A private folder of this user's in the system's temporary directory: <tmp>/<name>-<uid> (privateDir). */
export const privateTempDir = (name: string, temporary = tmpdir()) => privateDir(temporary, `${name}-${process.getuid?.() ?? 0}`);

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
