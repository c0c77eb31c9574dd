// Nothing a function run by the lab or a build may reach beyond this machine: the outbound guard
// every Node function is started with (core/local-aws/outbound-guard.cjs) refuses a connection by
// name to anything but loopback, and names the host on stderr; loopback still answers.
import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { OUTBOUND_GUARD } from "../../core/function-environment.mts";
import { NODE22 } from "../../core/paths.mts";

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
  ["fetch", 'await fetch("https://api.example.com/config").catch((e) => e.cause)'],
  ["https.get", 'await new Promise((resolve) => https.get("https://api.example.com/config").on("error", resolve))'],
  ["net.connect", 'await new Promise((resolve) => net.connect(5432, "db.example.com").on("error", resolve))'],
])("refuses %s to a host beyond this machine, naming it on stderr", async (_, attempt) => {
  const { stdout, stderr } = await guarded(
    `import https from "node:https"; import net from "node:net"; const error = ${attempt}; console.log(JSON.stringify({ code: error.code, message: error.message }));`,
  );
  expect(JSON.parse(stdout)).toEqual({ code: "ECONNREFUSED", message: expect.stringContaining("only the local AWS is reachable") });
  expect(stderr).toMatch(/^warpstart: refused an outbound connection to (api|db)\.example\.com: nothing the lab or a build runs may leave this machine/m);
});

it("lets a function reach what listens on loopback, by name", async () => {
  const { port } = server.address() as AddressInfo;
  const { stdout, stderr } = await guarded(`console.log(await (await fetch("http://localhost:${port}/")).text());`);
  expect(stdout.trim()).toBe("local");
  expect(stderr).toBe("");
});
