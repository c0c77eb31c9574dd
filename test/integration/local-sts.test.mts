// The local STS: moto behind TLS with keep-alive, trusted through the lab's own CA only, and
// clear errors for a busy port or a missing tool.
import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent, request } from "node:https";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertPortFree, type LocalSts, startLocalSts } from "../../lab/sts/local-sts.mts";

let sts: LocalSts;
beforeAll(async () => {
  sts = await startLocalSts();
});
afterAll(async () => {
  await sts?.stop();
});

/** GET / over one agent; resolves with whether the socket was a reused one. */
function get(agent: Agent): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const req = request(`${sts.endpoint}/`, { agent }, (res) => {
      res.resume();
      res.on("end", () => resolve(req.reusedSocket));
    });
    req.on("error", reject);
    req.end();
  });
}

it("listens on 127.0.0.1 with a certificate from the lab's CA", () => {
  expect(sts.endpoint).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  expect(readFileSync(sts.caFile, "utf8")).toContain("BEGIN CERTIFICATE");
});

it("answers the SDK's GetCallerIdentity over TLS", async () => {
  const client = new STSClient({
    region: "us-east-1",
    endpoint: sts.endpoint,
    credentials: { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "secret" },
    requestHandler: { httpsAgent: new Agent({ ca: readFileSync(sts.caFile) }) },
  });
  const identity = await client.send(new GetCallerIdentityCommand({}));
  expect(identity).toMatchObject({ Account: "123456789012", Arn: "arn:aws:sts::123456789012:user/moto" });
  client.destroy();
});

it("keeps connections alive: the second request reuses the socket", async () => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: readFileSync(sts.caFile) });
  expect(await get(agent)).toBe(false);
  expect(await get(agent)).toBe(true);
  agent.destroy();
});

it("is not trusted without the lab's CA", async () => {
  await expect(get(new Agent({ ca: [] as string[] }))).rejects.toThrow(/certificate/);
});

it("says which port is busy when a fixed port is in use", async () => {
  const busy: Server = await new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => resolve(server));
  });
  const { port } = busy.address() as { port: number };
  try {
    await expect(startLocalSts({ port })).rejects.toThrow(`port 127.0.0.1:${port} is already in use; stop whatever listens there or pick another port.`);
  } finally {
    busy.close();
  }
});

it("says how to install gunicorn when the venv is missing", async () => {
  const emptyVenv = mkdtempSync(join(tmpdir(), "warpstart-no-venv-"));
  try {
    await expect(startLocalSts({ venvBin: emptyVenv })).rejects.toThrow(
      `gunicorn not found at ${emptyVenv}/gunicorn: the Python venv is missing; run \`bash scripts/setup.sh\``,
    );
  } finally {
    rmSync(emptyVenv, { recursive: true, force: true });
  }
});

it("frees its port when stopped", async () => {
  const other = await startLocalSts();
  await other.stop();
  await expect(assertPortFree(other.port)).resolves.toBeUndefined();
});
