// Keep-alive, extra STS calls per invoke (?calls=K) and the CommonJS function, through the
// emulator as users reach it, with the local AWS counting the TCP connections it accepts.
// No timing is asserted: only answers and connection counts.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:https";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MASKED_ACCOUNT_ID } from "../../../../src/functions/identity/identity.mts";
import type { KeepAliveResults } from "../../cli/keepalive.mts";
import { listenOnLoopback } from "../../core/loopback.mts";
import { NODE22 } from "../../core/paths.mts";
import { RUNTIMES } from "../../core/runtimes.mts";
import { functionEnvironment, prepareTaskRoot, removeTaskRoot } from "../../emulation/function-environment.mts";
import { type Lab, startLab } from "../../lab/lab.mts";
import { DEMO_ROOT } from "../support/demo.mts";
import { builtFunction, eventOf, forceColdStart, functionEndpointOf, invokeLogged, restartLocalAws } from "../support/lab.mts";
import { WARPSTART } from "../support/warpstart.mts";

let lab: Lab;
beforeAll(async () => {
  lab = await startLab();
});
afterAll(async () => {
  await lab?.stop();
});

/** Invokes the function with its route's event (?calls=K when given); `body`: its parsed response body. */
async function invoke(functionName: string, calls?: number) {
  const result = await invokeLogged(lab, functionName, eventOf(functionName, calls === undefined ? {} : { calls: String(calls) }));
  return { ...result, body: result.functionError ? undefined : JSON.parse(result.payload.body) };
}

/** Connections the local AWS accepted while `work` ran. */
async function connectionsDuring(work: () => Promise<unknown>): Promise<number> {
  const before = lab.aws.connections();
  await work();
  return lab.aws.connections() - before;
}

async function invokes(functionName: string, count: number, calls: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const { functionError, payload, body } = await invoke(functionName, calls);
    expect(functionError).toBeUndefined();
    expect(body).toMatchObject({ coldstart: false, calls: { count: calls } });
    expect(body.calls.latenciesMs).toHaveLength(calls);
    expect(payload.statusCode).toBe(200);
  }
}

describe.each(["Cjs", "NoKeepAlive"])("%s", (functionName) => {
  it("answers cold, then warm from the same environment, with the calls it is asked for", async () => {
    const cold = await invoke(functionName, 2);
    expect(cold.functionError).toBeUndefined();
    expect(cold.body).toMatchObject({
      coldstart: true,
      function: functionName,
      path: `/${functionName.toLowerCase()}`,
      account: MASKED_ACCOUNT_ID,
      initializationType: "on-demand",
      calls: { count: 2, latenciesMs: [expect.any(Number), expect.any(Number)] },
    });
    expect(cold.body.initStsCallMs).toBeGreaterThan(0);
    expect(cold.log).toContain("INIT_START");

    const warm = await invoke(functionName);
    expect(warm.body).toMatchObject({ coldstart: false, function: functionName, stsRequestId: cold.body.stsRequestId, calls: { count: 0, latenciesMs: [] } });
    expect(warm.log).not.toContain("INIT_START");
  });
});

describe("connections to STS", () => {
  it("the local AWS counts every TCP connection it accepts", async () => {
    const caFile = readFileSync(lab.aws.caFile);
    const accepted = await connectionsDuring(
      () =>
        new Promise<void>((resolve, reject) => {
          const req = request(`${lab.aws.endpoint}/`, { agent: false, ca: caFile }, (res) => {
            res.resume();
            res.on("end", resolve);
          });
          req.on("error", reject);
          req.end();
        }),
    );
    expect(accepted).toBe(1);
  });

  // 0 expected: the warm invoke left the client's keep-alive socket open and every call reuses
  // it. 1 is allowed: gunicorn closes a socket idle for 75 s (--keep-alive), which a slow
  // machine between the two invokes could reach; the SDK then opens exactly one new one.
  it("with keep-alive (Optimized), a warm environment makes 5 invokes x 3 calls over the connection it has", async () => {
    await invoke("Optimized");
    expect(await connectionsDuring(() => invokes("Optimized", 5, 3))).toBeLessThanOrEqual(1);
  });

  it("without keep-alive (NoKeepAlive), every call opens a connection: 5 invokes x 3 calls, at least 15", async () => {
    await invoke("NoKeepAlive");
    expect(await connectionsDuring(() => invokes("NoKeepAlive", 5, 3))).toBeGreaterThanOrEqual(15);
  });
});

// Imports the built Cjs handler as the runtime would, then waits for a line on stdin (the test
// sends it once INIT's STS call has failed, with no invoke waiting: an unhandled rejection would
// have ended the process by then), then invokes it once.
const CJS_RUNNER = `
const { pathToFileURL } = await import("node:url");
const { once } = await import("node:events");
const { handler } = await import(pathToFileURL(process.env.LAMBDA_TASK_ROOT + "/src/functions/cjs/index.cjs").href);
await once(process.stdin, "data");
try {
  await handler({}, { awsRequestId: "r" });
  process.stdout.write(JSON.stringify({ ok: true }));
} catch (error) {
  process.stdout.write(JSON.stringify({ ok: false, error: error.message }));
}
process.exit(0);
`;

describe("Cjs when STS is down at INIT", () => {
  it("does not end its process when INIT's call fails with no invoke waiting; the next invoke fails with it", async () => {
    // An endpoint that drops every connection: the SDK's three attempts (its default) all fail.
    let attempts = 0;
    let allFailed!: () => void;
    const third = new Promise<void>((resolve) => (allFailed = resolve));
    const endpoint = createServer((socket) => {
      socket.destroy();
      if (++attempts === 3) allFailed();
    });
    const port = await listenOnLoopback(endpoint);
    const spec = builtFunction("Cjs");
    const taskRoot = prepareTaskRoot(spec);
    try {
      const env = functionEnvironment(spec, taskRoot, { awsEndpoint: `https://127.0.0.1:${port}`, caFile: lab.aws.caFile });
      const child = spawn(NODE22, [...RUNTIMES.node22.nodeFlags(spec.memoryMb), "--input-type=module", "-e", CJS_RUNNER], {
        cwd: taskRoot,
        env,
        stdio: ["pipe", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      await third;
      child.stdin.end("invoke\n");
      expect(await exited).toBe(0);
      expect(stderr).toBe("");
      expect(JSON.parse(stdout)).toEqual({
        ok: false,
        error: expect.stringContaining(`STS GetCallerIdentity failed during INIT (endpoint https://127.0.0.1:${port})`),
      });
      expect(attempts).toBe(3);
    } finally {
      endpoint.close();
      removeTaskRoot(taskRoot);
    }
  });

  it("through the emulator: fails the invoke naming the endpoint, and the same process answers once STS is back", async () => {
    const endpoint = functionEndpointOf(lab.aws);
    await forceColdStart(lab, "Cjs");
    await lab.aws.stop();
    try {
      const failed = await invoke("Cjs");
      // INIT itself succeeds (the call only started); the invoke that awaits it fails.
      expect(failed.log).toContain("INIT_START");
      expect(failed.log).not.toMatch(/INIT_REPORT .*Status: error/);
      expect(failed.functionError).toBe("Unhandled");
      expect(failed.payload).toMatchObject({
        errorType: "Error",
        errorMessage: expect.stringContaining(`STS GetCallerIdentity failed during INIT (endpoint ${endpoint}): connect ECONNREFUSED`),
      });
    } finally {
      lab.aws = await restartLocalAws(lab);
    }
    // The same process (no new INIT) calls STS again and gives its first answer.
    const retried = await invoke("Cjs");
    expect(retried.functionError).toBeUndefined();
    expect(retried.log).not.toContain("INIT_START");
    expect(retried.body).toMatchObject({ coldstart: true, function: "Cjs", account: MASKED_ACCOUNT_ID });
  });
});

describe("warpstart keepalive", () => {
  it("measures both functions at K = 1 and 10 and writes the report", () => {
    const out = mkdtempSync(join(tmpdir(), "warpstart-keepalive-"));
    try {
      const run = spawnSync(NODE22, [WARPSTART, "keepalive", "--no-build", "--invokes", "2", "--out", out], {
        cwd: DEMO_ROOT,
        encoding: "utf8",
        timeout: 120_000,
      });
      expect(run.stderr).not.toMatch(/^error:/m);
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/^\| function +\| keep-alive \| +K \| calls \| p50 ms\/call \| p90 ms\/call \| connections \| connections\/invoke \|$/m);
      const results = JSON.parse(readFileSync(join(out, "keepalive.json"), "utf8")) as KeepAliveResults;
      expect(results.rows.map((row) => [row.function, row.callsPerInvoke, row.invokes, row.latenciesMs.length])).toEqual([
        ["Optimized", 1, 2, 2],
        ["Optimized", 10, 2, 20],
        ["NoKeepAlive", 1, 2, 2],
        ["NoKeepAlive", 10, 2, 20],
      ]);
      expect(results.checks.every((check) => check.ok)).toBe(true);
      expect(readFileSync(join(out, "keepalive.md"), "utf8")).toContain("## One warm environment, one connection");
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
