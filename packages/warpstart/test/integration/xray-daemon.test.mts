// The lab's X-Ray daemon (emulation/local-aws/xray-daemon.mts): takes a tracer's UDP datagrams as
// Lambda's daemon does (the protocol's header line, then the segment) and keeps the segments.
import { createSocket } from "node:dgram";
import { startXrayDaemon, type XrayDaemon } from "../../emulation/local-aws/xray-daemon.mts";
import { eventually } from "../support/eventually.mts";

let daemon: XrayDaemon;
beforeAll(async () => {
  daemon = await startXrayDaemon();
});
afterAll(() => daemon.stop());

/** Sends one datagram to the daemon, as aws-xray-sdk-core's segment emitter does. */
const send = (text: string) =>
  new Promise<void>((resolve, reject) => {
    const socket = createSocket("udp4");
    const [host, port] = daemon.address.split(":");
    socket.send(text, Number(port), host, (error) => {
      socket.close();
      return error ? reject(error) : resolve();
    });
  });

it("listens on loopback and keeps each segment a tracer sends, dropping what is not one", async () => {
  expect(daemon.address).toMatch(/^127\.0\.0\.1:\d+$/);
  await send("not the daemon protocol");
  await send(
    `{"format": "json", "version": 1}\n${JSON.stringify({ name: "Orders", id: "70de5b6f19ff9a0a", trace_id: "1-5e1b4151-5ac6c58f5b5daa6532e4f7b5" })}`,
  );
  await eventually("the segment arrives", () => daemon.segments().length > 0);
  expect(daemon.segments()).toEqual([{ name: "Orders", id: "70de5b6f19ff9a0a", trace_id: "1-5e1b4151-5ac6c58f5b5daa6532e4f7b5" }]);
});
