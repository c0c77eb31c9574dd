// INIT of a built function, imported directly in a process started as the runtime starts it,
// fails with a message that says what went wrong when STS cannot be used.
// (Every variant's answer through the emulator: lab.test.mts.)
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VENV_BIN } from "../../core/paths.mts";
import { type LocalAws, startLocalAws } from "../../emulation/local-aws/local-aws.mts";
import { builtFunction, freePort, run } from "../support/lab.mts";

let aws: LocalAws;
beforeAll(async () => {
  aws = await startLocalAws();
});
afterAll(async () => {
  await aws?.stop();
});

describe("INIT failures", () => {
  it("names the endpoint when STS is unreachable", async () => {
    const closedPort = await freePort();
    const result = await run(builtFunction("Optimized"), { awsEndpoint: `https://127.0.0.1:${closedPort}`, caFile: aws.caFile });
    expect(result).toMatchObject({
      ok: false,
      errorMessage: expect.stringContaining(`STS GetCallerIdentity failed during INIT (endpoint https://127.0.0.1:${closedPort}): connect ECONNREFUSED`),
    });
  });

  it("fails when the function trusts another CA than the lab's", async () => {
    const otherCa = mkdtempSync(join(tmpdir(), "warpstart-other-ca-"));
    try {
      expect(spawnSync(join(VENV_BIN, "python"), [join(import.meta.dirname, "../../emulation/local-aws/certs.py"), otherCa]).status).toBe(0);
      const result = await run(builtFunction("Optimized"), { awsEndpoint: aws.endpoint, caFile: join(otherCa, "ca.pem") });
      expect(result).toMatchObject({ ok: false, errorMessage: expect.stringMatching(/endpoint https:\/\/127\.0\.0\.1:\d+\): .*(certificate|signature)/) });
    } finally {
      rmSync(otherCa, { recursive: true, force: true });
    }
  });
});
