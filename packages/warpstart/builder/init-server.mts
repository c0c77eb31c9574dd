// Build-time INITs under qemu in a long-lived Node (init-server-program.mjs) that every build of a `sam
// build` shares, instead of a Node started under qemu for each function. One server per Node (its
// files), architecture, flags and the environment Node reads once per process (a Worker cannot
// have its own), started by the first build that needs it, detached, and stopped once idle.

import type { Socket } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { connectTo, serverFiles, startDetached } from "../core/servers.mts";

const SERVER = join(import.meta.dirname, "init-server-program.mjs");

/**
 * The variables Node reads once per process, which a Worker cannot have its own of (a time zone, the
 * CA its TLS trusts, the options its process was started with): a server's, and part of its key.
 */
const PROCESS_VARIABLES = ["TZ", "LANG", "NODE_EXTRA_CA_CERTS", "NODE_OPTIONS", "NODE_ICU_DATA", "SSL_CERT_FILE", "SSL_CERT_DIR", "OPENSSL_CONF"];

/** One INIT: the child's arguments, the function's environment and folder, and the longest it may run. */
export interface InitRequest {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  timeoutMs: number;
}

/** What an INIT in the server did: the Worker's exit code, and its output (and what it threw). */
export interface InitAnswer {
  code: number;
  output: string;
  /** Whether it ran in the Worker the server made ahead of it (init-server-spare.mjs). */
  spare: boolean;
}

/** Where the server of a Node (its command line, `node`: qemu, its options, the Node and its flags) and environment listens and writes. */
export const initServerOf = (node: readonly string[], env: Record<string, string>) =>
  serverFiles("init-servers", [...node, ...PROCESS_VARIABLES.map((name) => `${name}=${env[name] ?? ""}`)]);

/** The servers this process started or is starting, by socket: an INIT waits for the one started ahead of it. */
const starting = new Map<string, Promise<void>>();

/** Starts a server, detached (it outlives this build), once it says it listens or that another one does. */
function startServer(node: readonly string[], env: Record<string, string>, { socket, log }: { socket: string; log: string }): Promise<void> {
  const serverEnv: Record<string, string> = { PATH: process.env.PATH ?? "" };
  for (const name of PROCESS_VARIABLES) if (env[name] !== undefined) serverEnv[name] = env[name];
  const args = [...node.slice(1), SERVER, socket, join(import.meta.dirname, "code-cache-child.mjs")];
  const started = startDetached(node[0]!, args, { env: serverEnv, log, what: "the build-time INIT server" });
  starting.set(socket, started);
  return started;
}

/** A connection to the server of `node` and `env`, started if none answers. */
async function serverFor(node: readonly string[], env: Record<string, string>): Promise<Socket> {
  const where = initServerOf(node, env);
  await starting.get(where.socket)?.catch(() => {});
  const socket = await connectTo(where.socket).catch(() => null);
  if (socket) return socket;
  await startServer(node, env, where);
  return connectTo(where.socket);
}

/**
 * Starts the server an INIT with this environment will ask, unless one answers, while the build
 * does other work (a Node's start under qemu: over a second). What fails here, the INIT's ask tries again.
 */
export function startInitServerAhead(node: readonly string[], env: Record<string, string>): void {
  void serverFor(node, env).then(
    (socket) => socket.destroy(),
    () => {},
  );
}

/** Runs one INIT in the server of `node` and the request's environment, started if none answers. */
export async function initInServer(node: readonly string[], request: InitRequest): Promise<InitAnswer> {
  const where = initServerOf(node, request.env);
  const connection = await serverFor(node, request.env);
  return new Promise((resolve, reject) => {
    let answered = false;
    createInterface({ input: connection }).once("line", (line) => {
      answered = true;
      connection.destroy();
      resolve(JSON.parse(line) as InitAnswer);
    });
    connection.once("close", () => {
      if (!answered) reject(new Error(`the build-time INIT server ended before it answered: see ${where.log}`));
    });
    connection.once("error", reject);
    connection.write(`${JSON.stringify(request)}\n`);
  });
}
