// The X-Ray daemon a function's tracer sends its segments to: on Lambda a UDP port at
// AWS_XRAY_DAEMON_ADDRESS (169.254.79.129:2000); here one on loopback that takes each datagram
// (the daemon protocol's header line, then the segment's JSON) and keeps the segment.
import { createSocket } from "node:dgram";

export interface XrayDaemon {
  /** host:port, as Lambda's AWS_XRAY_DAEMON_ADDRESS gives it. */
  address: string;
  /** The segments received so far, parsed. */
  segments(): Record<string, unknown>[];
  stop(): Promise<void>;
}

export async function startXrayDaemon(): Promise<XrayDaemon> {
  const socket = createSocket("udp4");
  const received: Record<string, unknown>[] = [];
  socket.on("message", (datagram) => {
    // `{"format": "json", "version": 1}\n{segment}`: anything else is not a segment and is dropped.
    const [, body] = datagram.toString("utf8").split("\n", 2);
    try {
      if (body) received.push(JSON.parse(body) as Record<string, unknown>);
    } catch {}
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(0, "127.0.0.1", () => resolve());
  });
  socket.unref(); // a listener that never keeps its owner alive
  return {
    address: `127.0.0.1:${socket.address().port}`,
    segments: () => [...received],
    stop: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
