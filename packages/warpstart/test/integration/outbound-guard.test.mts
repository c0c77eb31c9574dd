// Nothing a function run by the lab or a build may reach beyond this machine: the outbound guard
// every Node function is started with (emulation/local-aws/outbound-guard.cjs) refuses a connection to
// anything but loopback, by name or by address, over TCP or UDP, and names the host and port on
// stderr; loopback still answers, and a UDP socket may still bind to every interface.
import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { NODE22 } from "../../core/paths.mts";
import { OUTBOUND_GUARD } from "../../emulation/function-environment.mts";

/** Runs a script in a Node 22 process started with the guard, as the lab starts a function; resolves with its output. */
const guarded = (script: string) =>
  new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
    execFile(NODE22, ["--require", OUTBOUND_GUARD, "--input-type=module", "-e", script], { env: { PATH: process.env.PATH } }, (error, stdout, stderr) =>
      error ? reject(Object.assign(error, { stderr })) : resolve({ stdout, stderr }),
    ),
  );

let server: Server;
beforeAll(async () => {
  server = createServer((_, res) => res.end("local")).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

it.each([
  ["fetch", 'await fetch("https://api.example.com/config").catch((e) => e.cause)', "api.example.com:443"],
  ["https.get", 'await new Promise((resolve) => https.get("https://api.example.com/config").on("error", resolve))', "api.example.com:443"],
  ["net.connect", 'await new Promise((resolve) => net.connect(5432, "db.example.com").on("error", resolve))', "db.example.com:5432"],
  ["fetch of an address", 'await fetch("http://10.1.2.3:8080/").catch((e) => e.cause)', "10.1.2.3:8080"],
  ["net.connect to an IPv6 address", 'await new Promise((resolve) => net.connect(443, "2001:db8::77").on("error", resolve))', "[2001:db8::77]:443"],
  ["a UDP datagram", 'await new Promise((resolve) => dgram.createSocket("udp4").send("x", 2000, "metrics.example.com", resolve))', "metrics.example.com:2000"],
])("refuses %s beyond this machine, naming the host and port on stderr", async (_, attempt, target) => {
  const { stdout, stderr } = await guarded(
    `import dgram from "node:dgram"; import https from "node:https"; import net from "node:net"; const error = ${attempt}; console.log(error.code); process.exit();`,
  );
  expect(stdout.trim()).toBe("ECONNREFUSED");
  expect(stderr).toBe(
    `warpstart: refused an outbound connection to ${target}: nothing the lab or a build runs may leave this machine; only the local AWS is reachable\n`,
  );
});

it("lets a function reach what listens on loopback, by name", async () => {
  const { port } = server.address() as AddressInfo;
  const { stdout, stderr } = await guarded(`console.log(await (await fetch("http://localhost:${port}/")).text());`);
  expect(stdout.trim()).toBe("local");
  expect(stderr).toBe("");
});

it("lets a UDP socket bound to every interface send to loopback (the X-Ray SDK's way to its daemon)", async () => {
  const { stdout, stderr } = await guarded(
    'import dgram from "node:dgram"; const socket = dgram.createSocket("udp4"); socket.bind(); const error = await new Promise((resolve) => socket.send("x", 2000, "127.0.0.1", resolve)); console.log(String(error)); socket.close();',
  );
  expect(stdout.trim()).toBe("null");
  expect(stderr).toBe("");
});

it("says once why a client asked for an AWS endpoint: it did not read AWS_ENDPOINT_URL, as the SDK v2 never does", async () => {
  const attempt = 'await fetch("https://events.us-east-1.amazonaws.com/").catch(() => {});';
  const { stderr } = await guarded(`${attempt} ${attempt}`);
  const refusal =
    "warpstart: refused an outbound connection to events.us-east-1.amazonaws.com:443: nothing the lab or a build runs may leave this machine; only the local AWS is reachable";
  expect(stderr).toBe(
    `${refusal} (a client that did not read AWS_ENDPOINT_URL, where the lab puts the local AWS: the SDK v2, aws-sdk, never reads it; the v3 clients, @aws-sdk/client-*, do)\n${refusal}\n`,
  );
});
