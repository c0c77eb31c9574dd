// The local AWS: every service moto implements (app.py), served by gunicorn over TLS with
// keep-alive on 127.0.0.1, behind a TCP proxy that counts the connections clients open (each TLS
// session rides one). Functions reach it through AWS_ENDPOINT_URL (the proxy) and trust exactly
// its CA. Every call it answers is recorded with the access key that signed it.

import { type ChildProcess, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { request } from "node:https";
import { connect, createServer, type Server, type Socket } from "node:net";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { setImmediate as nextTurn } from "node:timers/promises";
import type { AwsCall } from "../../core/init-services.mts";
import { listenOnLoopback } from "../../core/loopback.mts";
import { LOCAL_AWS_CA_FILE, setupHint, VENV_BIN } from "../../core/paths.mts";
import { spawnOwned } from "../../core/processes.mts";
import { ensurePart } from "../../core/tools.mts";
import { LOOPBACK, link, type NetworkModel } from "./network.mts";
import { startXrayDaemon, type XrayDaemon } from "./xray-daemon.mts";

const APP_DIR = import.meta.dirname;
const START_TIMEOUT_MS = 30_000;
export const LOCAL_REGION = "us-east-1";
/** The error code app.py answers a call with when moto cannot (a service or an operation it does not implement). */
export const NOT_SERVED = "NotServedByLocalAws";
/** The operation app.py records for a PUT to a custom resource's ResponseURL (emulation/events.mts). */
export const CUSTOM_RESOURCE_RESPONSE = "CustomResourceResponse";
/** The start-up probe's access key: its call is not one of anybody's. */
const PROBE_KEY = "ASIAWARPSTARTPROBE00";

export interface LocalAws {
  /** e.g. https://127.0.0.1:41234 (the counting proxy in front of gunicorn): by address, so the proxy plays the network's DNS lookup. */
  endpoint: string;
  port: number;
  /**
   * When the network has a DNS lookup: the same service by name (https://localhost:<port>), whose
   * connections the proxy does not charge a lookup, for a client that pays it where Lambda's does,
   * in its own resolver (a Node function in the lab: dns.cjs). Null on a network without one.
   */
  byName: { endpoint: string; port: number; dnsMs: number } | null;
  /** The CA that signed the server certificate: the only one functions should trust. */
  caFile: string;
  /** TCP connections accepted since start (the start-up probe's not counted). */
  connections(): number;
  /** Calls answered so far, in order; with an access key, only the calls it signed. */
  calls(accessKeyId?: string): Promise<AwsCall[]>;
  /** Calls `listener` with each call it could not answer (NOT_SERVED) as it answers it: before the caller reads the answer. */
  onNotServed(listener: (call: AwsCall) => void): void;
  /** The X-Ray daemon functions send their trace segments to. */
  xray: XrayDaemon;
  /** Stops the proxy (closing every connection through it), gunicorn and the X-Ray daemon. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** A fixed port; by default the OS picks a free one. */
  port?: number;
  /** A fixed port for the endpoint by name (when the network has a lookup); by default a free one. */
  byNamePort?: number;
  /** What connections through the endpoint cost (default: loopback, none). */
  network?: NetworkModel;
  venvBin?: string;
}

class LocalAwsError extends Error {
  override name = "LocalAwsError";
}

function requireTool(venvBin: string, tool: string): string {
  const path = join(venvBin, tool);
  if (!existsSync(path)) throw new LocalAwsError(`${tool} not found at ${path}: the Python venv is missing; ${setupHint("moto")}.`);
  return path;
}

/** moto is the local AWS: without it gunicorn would only fail later, importing app.py. */
function requireMoto(venvBin: string): void {
  const lib = join(dirname(venvBin), "lib");
  const pythons = existsSync(lib) ? readdirSync(lib).filter((name) => name.startsWith("python")) : [];
  if (!pythons.some((python) => existsSync(join(lib, python, "site-packages/moto/__init__.py")))) {
    throw new LocalAwsError(`moto is not installed in the Python venv ${dirname(venvBin)} (it is the local AWS); ${setupHint("moto")}.`);
  }
}

function ensureCertificates(venvBin: string, certDir: string): void {
  if (existsSync(LOCAL_AWS_CA_FILE)) return;
  const made = spawnSync(requireTool(venvBin, "python"), [join(APP_DIR, "certs.py"), certDir], { encoding: "utf8" });
  if (made.status !== 0) throw new LocalAwsError(`could not create the lab's certificates in ${certDir}: ${made.stderr || made.error}`);
}

export async function assertPortFree(port: number): Promise<void> {
  const probe = createServer();
  await listenOnLoopback(probe, port);
  await new Promise((resolve) => probe.close(resolve));
}

/**
 * A TCP proxy on 127.0.0.1 to gunicorn that counts the connections it accepts and plays the
 * network (network.mts), on two ports when the network has a DNS lookup: one charging it (for
 * clients that connect by address) and one not (for clients whose resolver paid it).
 */
class CountingProxy {
  accepted = 0;
  private readonly byAddress: Server;
  private readonly byName: Server | null;
  private readonly sockets = new Set<Socket>();

  constructor(upstreamPort: number, network: NetworkModel) {
    const serve = (model: NetworkModel) =>
      // No Nagle on either side: a proxy that held small writes back would add delayed-ACK stalls (~40 ms).
      createServer({ noDelay: true }, (client) => {
        this.accepted++;
        const upstream = connect({ port: upstreamPort, host: "127.0.0.1", noDelay: true });
        for (const socket of [client, upstream]) {
          this.sockets.add(socket);
          socket.once("close", () => this.sockets.delete(socket));
        }
        link(client, upstream, model);
      });
    this.byAddress = serve(network);
    this.byName = network.dnsMs > 0 ? serve({ ...network, dnsMs: 0 }) : null;
  }

  /** Resolves with the ports it listens on (the ones given, or free ones for 0). */
  async listen(port: number, byNamePort: number): Promise<{ byAddress: number; byName: number | null }> {
    return { byAddress: await listenOnLoopback(this.byAddress, port), byName: this.byName ? await listenOnLoopback(this.byName, byNamePort) : null };
  }

  async close(): Promise<void> {
    const listening = [this.byAddress, this.byName].filter((server): server is Server => server?.listening === true);
    const closed = Promise.all(listening.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}

/** Resolves with gunicorn's port once it says where it listens; rejects if it exits first. */
function listeningPort(child: ChildProcess, log: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new LocalAwsError(`gunicorn did not start within ${START_TIMEOUT_MS} ms:\n${log.join("")}`)), START_TIMEOUT_MS);
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
      reject(new LocalAwsError(`gunicorn exited (code ${code}) before listening:\n${log.join("").slice(-2000)}`));
    });
  });
}

/** One signed-looking STS GetCallerIdentity over TLS with the lab CA: proves app and certificate work. */
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
          authorization: `AWS4-HMAC-SHA256 Credential=${PROBE_KEY}/20260101/us-east-1/sts/aws4_request, SignedHeaders=host, Signature=0`,
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new LocalAwsError(`the local AWS answered ${res.statusCode}`))));
      },
    );
    req.setTimeout(10_000, () => req.destroy(new LocalAwsError("the local AWS did not answer within 10 s")));
    req.on("error", reject);
    req.end(body);
  });
}

export async function startLocalAws(options: StartOptions = {}): Promise<LocalAws> {
  if (!options.venvBin) ensurePart("moto");
  const venvBin = options.venvBin ?? VENV_BIN;
  const certDir = dirname(LOCAL_AWS_CA_FILE);
  const gunicorn = requireTool(venvBin, "gunicorn");
  requireMoto(venvBin);
  ensureCertificates(venvBin, certDir);
  if (options.port) await assertPortFree(options.port);

  // gunicorn on a free port of its own; the endpoint is the proxy's (options.port if given). It
  // ends with this process, however that ends (core/processes.mts, gunicorn.conf.py).
  const child = spawnOwned(
    gunicorn,
    [
      "app:app",
      "--config",
      join(APP_DIR, "gunicorn.conf.py"),
      "--bind",
      "127.0.0.1:0",
      "--worker-class",
      "gthread",
      "--threads",
      "8",
      "--keep-alive",
      "75", // longer than any idle gap in a bench round, as AWS's endpoints keep sockets
      "--certfile",
      join(certDir, "server.pem"),
      "--keyfile",
      join(certDir, "server.key"),
      "--no-control-socket",
      // HTTP/2 for the clients that speak only it (the SDK's Bedrock runtime client): without it
      // they fail with a bare ERR_HTTP2_ERROR. HTTP/1.1 clients offer no ALPN, and keep HTTP/1.1.
      "--http-protocols",
      "h2,h1",
      "--log-level",
      "info",
    ],
    {
      cwd: APP_DIR,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, PYTHONWARNINGS: "ignore", PYTHONUNBUFFERED: "1", WARPSTART_OWNER_PID: String(process.pid) },
    },
  );
  const recorded: AwsCall[] = [];
  const notServedListeners: ((call: AwsCall) => void)[] = [];
  createInterface({ input: child.stdout! }).on("line", (line) => {
    if (!line.startsWith("{")) return;
    const call = JSON.parse(line) as AwsCall;
    recorded.push(call);
    if (call.errorCode === NOT_SERVED) for (const listener of notServedListeners) listener(call);
  });
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
  let xray: XrayDaemon | undefined;
  const stop = async () => {
    await proxy?.close();
    await xray?.stop();
    await stopGunicorn();
  };

  try {
    const network = options.network ?? LOOPBACK;
    proxy = new CountingProxy(await listeningPort(child, log), network);
    const ports = await proxy.listen(options.port ?? 0, options.byNamePort ?? 0);
    const port = ports.byAddress;
    const endpoint = `https://127.0.0.1:${port}`;
    const caFile = LOCAL_AWS_CA_FILE;
    await probe(endpoint, readFileSync(caFile, "utf8"));
    const counter = proxy;
    counter.accepted = 0; // the probe's connection
    xray = await startXrayDaemon();
    return {
      xray,
      endpoint,
      port,
      byName: ports.byName === null ? null : { endpoint: `https://localhost:${ports.byName}`, port: ports.byName, dnsMs: network.dnsMs },
      caFile,
      connections: () => counter.accepted,
      onNotServed: (listener) => notServedListeners.push(listener),
      calls: async (accessKeyId) => {
        // A call's record reaches gunicorn's stdout before its answer leaves; two turns of the event loop read what is already in the pipe.
        await nextTurn();
        await nextTurn();
        return recorded.filter((call) => call.accessKeyId !== PROBE_KEY && (accessKeyId === undefined || call.accessKeyId === accessKeyId));
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
