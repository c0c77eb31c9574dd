// A TLS endpoint in front of the local AWS that keeps every byte clients send it, as sent (after
// decryption), one record per connection, and forwards them, so the answers are the local AWS's
// own. It serves the local AWS's server certificate, which the CA functions trust signs.
import { readFileSync } from "node:fs";
import type { Socket } from "node:net";
import { dirname, join } from "node:path";
import { connect, createServer as createTlsServer, type TLSSocket } from "node:tls";
import { listenOnLoopback } from "../../core/loopback.mts";
import type { LocalServices } from "../../emulation/function-environment.mts";
import type { LocalAws } from "../../emulation/local-aws/local-aws.mts";

export interface RequestRecorder {
  /** What a function gets instead of the local AWS's endpoint. */
  services: LocalServices;
  /** The bytes each connection opened since the last call sent, in the order they were opened; forgets them. */
  takeSent(): Buffer[];
  close(): Promise<void>;
}

export async function startRequestRecorder(aws: Pick<LocalAws, "port" | "caFile">): Promise<RequestRecorder> {
  const certDir = dirname(aws.caFile);
  const ca = readFileSync(aws.caFile);
  let sent: Buffer[][] = [];
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  };
  const server = createTlsServer({ cert: readFileSync(join(certDir, "server.pem")), key: readFileSync(join(certDir, "server.key")) }, (client: TLSSocket) => {
    const chunks: Buffer[] = [];
    sent.push(chunks);
    const upstream = connect({ host: "127.0.0.1", port: aws.port, ca });
    for (const socket of [client, upstream]) track(socket);
    client.on("data", (chunk: Buffer) => chunks.push(chunk));
    client.pipe(upstream).pipe(client);
    // Either side ending or failing ends the other: nothing waits on a half-open pair.
    client.once("close", () => upstream.destroy());
    upstream.once("close", () => client.destroy());
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  const port = await listenOnLoopback(server);
  return {
    // By name too, as a lab function gets it, so a Node function resolves it (and Warp looks it up early).
    services: { awsEndpoint: `https://127.0.0.1:${port}`, awsByName: { endpoint: `https://localhost:${port}`, dnsMs: 0 }, caFile: aws.caFile },
    takeSent: () => {
      const taken = sent.map((chunks) => Buffer.concat(chunks));
      sent = [];
      return taken;
    },
    close: () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      return closed;
    },
  };
}
