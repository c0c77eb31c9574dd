// The Runtime API an environment's runtime talks to: a request the runtime aborts mid-body is
// dropped, and the server goes on answering (it used to become an unhandled rejection that ended
// the lab).
import { connect } from "node:net";
import { RuntimeApi } from "../../lab/emulator/runtime-api.mts";

it("drops a request aborted mid-body and keeps serving", async () => {
  const api = new RuntimeApi();
  const address = await api.listen();
  const [host, port] = address.split(":");
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  try {
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), host, () => {
        socket.write('POST /2018-06-01/runtime/init/error HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"errorType":');
        socket.destroy();
        resolve();
      });
    });
    // The next request is answered: the server is still there.
    const response = await fetch(`http://${address}/2018-06-01/runtime/invocation/unknown/response`, { method: "POST", body: "{}" });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ errorType: "InvalidRequestID", errorMessage: "Invalid request ID" });
    expect(unhandled).toEqual([]);
  } finally {
    process.off("unhandledRejection", onUnhandled);
    api.close();
  }
});
