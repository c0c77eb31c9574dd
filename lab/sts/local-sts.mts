// The local STS: moto's STS app served by gunicorn over TLS with keep-alive, on 127.0.0.1.
// Functions reach it through AWS_ENDPOINT_URL_STS and trust exactly its CA.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { request } from "node:https";
import { createServer } from "node:net";
import { join } from "node:path";
import { SETUP_HINT, STATE_DIR, VENV_BIN } from "../paths.mts";

const APP_DIR = import.meta.dirname;
const START_TIMEOUT_MS = 30_000;

export interface LocalSts {
  /** e.g. https://127.0.0.1:41234 */
  endpoint: string;
  port: number;
  /** The CA that signed the server certificate: the only one functions should trust. */
  caFile: string;
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
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new LocalStsError(`port 127.0.0.1:${port} is already in use; stop whatever listens there or pick another port.`)
          : error,
      ),
    );
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve()));
  });
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

  const child = spawn(
    gunicorn,
    [
      "app:app",
      "--bind", `127.0.0.1:${options.port ?? 0}`,
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
  const stop = () =>
    new Promise<void>((resolve) => {
      if (exited) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
    });

  try {
    const port = await listeningPort(child, log);
    const endpoint = `https://127.0.0.1:${port}`;
    const caFile = join(certDir, "ca.pem");
    await probe(endpoint, readFileSync(caFile, "utf8"));
    return { endpoint, port, caFile, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
