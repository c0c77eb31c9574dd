// Every built variant, run as the managed runtime starts it, against the real local STS
// (moto behind TLS): the masked identity comes back; INIT fails clearly when STS cannot be used.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VARIANT_NAMES } from "../../build/variants.mts";
import { MASKED_ACCOUNT_ID } from "../../src/functions/identity/identity.mts";
import { VENV_BIN } from "../../lab/paths.mts";
import { type LocalSts, startLocalSts } from "../../lab/sts/local-sts.mts";
import { builtFunction, run, succeeded } from "../support/lab.mts";

let sts: LocalSts;
beforeAll(async () => {
  sts = await startLocalSts();
});
afterAll(async () => {
  await sts?.stop();
});

describe.each(VARIANT_NAMES)("%s", (name) => {
  it("returns the masked caller identity from the local STS", async () => {
    const result = succeeded(await run(builtFunction(name), sts));
    expect(result.response.statusCode).toBe(200);
    const body = JSON.parse(result.response.body);
    expect(body).toMatchObject({
      account: MASKED_ACCOUNT_ID,
      arn: `arn:aws:sts::${MASKED_ACCOUNT_ID}:user/moto`,
      coldstart: true,
      variant: name,
      nodeVersion: "v22.23.3",
      path: `/${name.toLowerCase()}`,
    });
    expect(result.response.body).not.toContain("123456789012");
    expect(body.stsRequestId).toMatch(/^\w{20,}$/);
    expect(body.lambdaRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.initStsCallMs).toBeGreaterThan(0);
    expect(body.artifactBytes).toBeGreaterThan(0);
    expect(body.sdkVersion).toBe(name === "Raw" ? "provided by the runtime" : "3.1169.0");
  });
});

describe("INIT failures", () => {
  it("names the endpoint when STS is unreachable", async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const result = await run(builtFunction("Optimized"), { endpoint: `https://127.0.0.1:${closedPort}`, caFile: sts.caFile });
    expect(result).toMatchObject({
      ok: false,
      errorMessage: expect.stringContaining(`STS GetCallerIdentity failed during INIT (endpoint https://127.0.0.1:${closedPort}): connect ECONNREFUSED`),
    });
  });

  it("fails when the function trusts another CA than the lab's", async () => {
    const otherCa = mkdtempSync(join(tmpdir(), "warpstart-other-ca-"));
    try {
      expect(spawnSync(join(VENV_BIN, "python"), [join(import.meta.dirname, "../../lab/sts/certs.py"), otherCa]).status).toBe(0);
      const result = await run(builtFunction("Optimized"), { endpoint: sts.endpoint, caFile: join(otherCa, "ca.pem") });
      expect(result).toMatchObject({ ok: false, errorMessage: expect.stringMatching(/endpoint https:\/\/127\.0\.0\.1:\d+\): .*(certificate|signature)/) });
    } finally {
      rmSync(otherCa, { recursive: true, force: true });
    }
  });
});
