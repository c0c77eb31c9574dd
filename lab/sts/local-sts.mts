// The local STS: moto's STS app served by gunicorn over TLS with keep-alive, on 127.0.0.1,
// behind a TCP proxy that counts the connections clients open (each TLS session rides one).
// Functions reach it through AWS_ENDPOINT_URL_STS (the proxy) and trust exactly its CA.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { request } from "node:https";
import { connect, createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { SETUP_HINT, STATE_DIR, VENV_BIN } from "../paths.mts";
import { listenOnLoopback } from "../loopback.mts";

const APP_DIR = import.meta.dirname;
const START_TIMEOUT_MS = 30_000;

export interface LocalSts {
  /** e.g. https://127.0.0.1:41234 (the counting proxy in front of gunicorn) */
  endpoint: string;
  port: number;
  /** The CA that signed the server certificate: the only one functions should trust. */
  caFile: string;
  /** TCP connections accepted since start (the start-up probe's not counted). */
  connections(): number;
  /** Stops the proxy (closing every connection through it) and gunicorn. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** A fixed port; by default the OS picks a free one. */
  port?: number;
  /** Where the CA and certificate live (created once). */
  certDir?: string;
  venvBin?: string;
}

export class LocalStsError extends Error {
  override name = "LocalStsError";
}

function requireTool(venvBin: string, tool: string): string {
  const path = join(venvBin, tool);
  if (!existsSync(path)) throw new LocalStsError(`${tool} not found at ${path}: the Python venv is missing; ${SETUP_HINT}.`);
  return path;
}

function ensureCertificates(venvBin: string, certDir: string): void {
  if (existsSync(join(certDir, "ca.pem"))) return;
  const made = spawnSync(requireTool(venvBin, "python"), [join(APP_DIR, "certs.py"), certDir], { encoding: "utf8" });
  if (made.status !== 0) throw new LocalStsError(`could not create the lab's certificates in ${certDir}: ${made.stderr || made.error}`);
}

export async function assertPortFree(port: number): Promise<void> {
  const probe = createServer();
  await listenOnLoopback(probe, port);
  await new Promise((resolve) => probe.close(resolve));
}

/** A TCP proxy on 127.0.0.1 to gunicorn that counts the connections it accepts. */
class CountingProxy {
  accepted = 0;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor(upstreamPort: number) {
    // No Nagle on either side: a proxy that held small writes back would add delayed-ACK stalls (~40 ms).
    this.server = createServer({ noDelay: true }, (client) => {
      this.accepted++;
      const upstream = connect({ port: upstreamPort, host: "127.0.0.1", noDelay: true });
      // Bytes both ways; an end (FIN) is passed on by pipe, a reset or failure resets the other side.
      for (const [from, to] of [[client, upstream], [upstream, client]] as const) {
        this.sockets.add(from);
        from.once("close", () => this.sockets.delete(from));
        from.on("error", () => to.destroy());
        from.pipe(to);
      }
    });
  }

  /** Resolves with the port it listens on (`port`, or a free one for 0). */
  listen(port: number): Promise<number> {
    return listenOnLoopback(this.server, port);
  }

  close(): Promise<void> {
    if (!this.server.listening) return Promise.resolve();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    return closed;
  }
}

/** Resolves with gunicorn's port once it says where it listens; rejects if it exits first. */
function listeningPort(child: ChildProcess, log: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new LocalStsError(`gunicorn did not start within ${START_TIMEOUT_MS} ms:\n${log.join("")}`)), START_TIMEOUT_MS);
    child.stderr!.on("data", (chunk: Buffer) => {
      log.push(chunk.toString());
      const match = /Listening at: https:\/\/127\.0\.0\.1:(\d+)/.exec(log.join(""));
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new LocalStsError(`gunicorn exited (code ${code}) before listening:\n${log.join("").slice(-2000)}`));
    });
  });
}

/** One signed-looking GetCallerIdentity over TLS with the lab CA: proves app and certificate work. */
function probe(endpoint: string, ca: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const body = "Action=GetCallerIdentity&Version=2011-06-15";
    const req = request(
      endpoint,
      {
        method: "POST",
        ca,
        agent: false,
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: "AWS4-HMAC-SHA256 Credential=AKIDLAB/20260101/us-east-1/sts/aws4_request, SignedHeaders=host, Signature=0",
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new LocalStsError(`local STS answered ${res.statusCode}`))));
      },
    );
    req.setTimeout(10_000, () => req.destroy(new LocalStsError("local STS did not answer within 10 s")));
    req.on("error", reject);
    req.end(body);
  });
}

export async function startLocalSts(options: StartOptions = {}): Promise<LocalSts> {
  const venvBin = options.venvBin ?? VENV_BIN;
  const certDir = options.certDir ?? join(STATE_DIR, "certs");
  const gunicorn = requireTool(venvBin, "gunicorn");
  ensureCertificates(venvBin, certDir);
  if (options.port) await assertPortFree(options.port);

  // gunicorn on a free port of its own; the endpoint is the proxy's (options.port if given).
  const child = spawn(
    gunicorn,
    [
      "app:app",
      "--bind", "127.0.0.1:0",
      "--worker-class", "gthread",
      "--threads", "8",
      "--keep-alive", "75", // longer than any idle gap in a bench round, as AWS's endpoints keep sockets
      "--certfile", join(certDir, "server.pem"),
      "--keyfile", join(certDir, "server.key"),
      "--no-control-socket",
      "--log-level", "info",
    ],
    { cwd: APP_DIR, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, PYTHONWARNINGS: "ignore" } },
  );
  const log: string[] = [];
  let exited = false;
  child.once("exit", () => (exited = true));
  const stopGunicorn = () =>
    new Promise<void>((resolve) => {
      if (exited) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
    });
  let proxy: CountingProxy | undefined;
  const stop = async () => {
    await proxy?.close();
    await stopGunicorn();
  };

  try {
    proxy = new CountingProxy(await listeningPort(child, log));
    const port = await proxy.listen(options.port ?? 0);
    const endpoint = `https://127.0.0.1:${port}`;
    const caFile = join(certDir, "ca.pem");
    await probe(endpoint, readFileSync(caFile, "utf8"));
    const counter = proxy;
    counter.accepted = 0; // the probe's connection
    return { endpoint, port, caFile, connections: () => counter.accepted, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
