// The servers a `sam build`'s builds share (the local AWS of emulation/local-aws/build-services.mts,
// the build-time INIT server of builder/init-server.mts): the first build that needs one starts it,
// detached, so that it outlives that build and serves the next; each stops itself once idle. They
// are the one exception to core/processes.mts's rule that nothing outlives its owner.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, openSync, readFileSync } from "node:fs";
import { createConnection, type Socket } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { labHomeDir } from "./paths.mts";

/** Where the server of `kind` that `key` names (what it serves, a value each) listens, and writes what it did: the lab's home, per project. */
export function serverFiles(kind: string, key: readonly string[]): { socket: string; log: string } {
  const dir = join(labHomeDir(), kind);
  mkdirSync(dir, { recursive: true });
  const name = createHash("sha256").update(key.join("\0")).digest("hex").slice(0, 16);
  return { socket: join(dir, `${name}.sock`), log: join(dir, `${name}.log`) };
}

/** A connection to the server on a Unix socket; rejected when none answers. */
export function connectTo(socketPath: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath);
    socket.once("connect", () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Whether a server answers on a socket (a connection that asks nothing, closed at once). */
export function answers(socketPath: string): Promise<boolean> {
  return connectTo(socketPath).then(
    (socket) => {
      socket.destroy();
      return true;
    },
    () => false,
  );
}

/**
 * Starts a server, detached (it outlives this process), its stderr appended to `log`; resolved once
 * it writes its first line (it listens, or another one does), rejected with the log's last lines if
 * it ends before. `what` names it in that message.
 */
export function startDetached(command: string, args: string[], { env, log, what }: { env?: NodeJS.ProcessEnv; log: string; what: string }): Promise<void> {
  const server = spawn(command, args, { detached: true, stdio: ["ignore", "pipe", openSync(log, "a")], env });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: server.stdout! });
    lines.once("line", () => {
      lines.close();
      server.stdout!.destroy();
      server.unref();
      resolve();
    });
    server.once("exit", (code) => {
      const said = readFileSync(log, "utf8").trim().split("\n").slice(-5).join("\n");
      reject(new Error(`${what} did not start (exit ${code}):\n${said}`));
    });
    server.once("error", reject);
  });
}
