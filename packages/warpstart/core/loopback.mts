// Every server of the lab listens on 127.0.0.1 only, on a free port unless one is asked for.
import type { Server as HttpServer } from "node:http";
import type { AddressInfo, Server } from "node:net";

const portInUseMessage = (port: number) => `port 127.0.0.1:${port} is already in use; stop whatever listens there or pick another port.`;

/** Listens on 127.0.0.1 (port 0 = a free one); resolves with the port. */
export function listenOnLoopback(server: Server, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => reject(error.code === "EADDRINUSE" ? new Error(portInUseMessage(port)) : error));
    server.listen(port, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });
}

/** Closes a server and every connection it still holds (idle keep-alive sockets included). */
export function closeServer(server: HttpServer): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
