// The Floor function (no SDK) bundled on its own and run in fresh Node 22 processes against the
// real local AWS. A child process, because NODE_EXTRA_CA_CERTS is only read at process start.

import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { RequestListener } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { MASKED_ACCOUNT_ID } from "../../../../src/functions/identity/identity.mts";
import { NODE22 } from "../../core/paths.mts";
import { RUNTIMES } from "../../core/runtimes.mts";
import { type LocalAws, startLocalAws } from "../../emulation/local-aws/local-aws.mts";
import { freePort } from "../support/lab.mts";

// Imports the module given as argv[2], then invokes it twice; prints one JSON line either way.
const RUNNER = `
const print = (result) => process.stdout.write(JSON.stringify(result));
try {
  const { handler } = await import(process.argv[2]);
  const builtins = process.moduleLoadList.filter((entry) => entry.startsWith("NativeModule ")).map((entry) => entry.slice(13));
  const responses = handler ? [await handler({ rawPath: "/floor" }, { awsRequestId: "r1" }), await handler({ rawPath: "/floor" }, { awsRequestId: "r2" })] : [];
  print({ ok: true, builtins, responses });
} catch (error) {
  print({ ok: false, error: error.message });
}
`;

type RunResult = { ok: true; builtins: string[]; responses: { statusCode: number; body: string }[] } | { ok: false; error: string };

let aws: LocalAws;
let workDir: string;
let floorModule: string;
let bundleInputs: string[];

beforeAll(async () => {
  aws = await startLocalAws();
  workDir = mkdtempSync(join(tmpdir(), "warpstart-floor-"));
  // The function gets a folder of its own: artifactBytes measures the module's folder.
  floorModule = join(workDir, "floor", "index.mjs");
  const result = await build({
    entryPoints: [join(import.meta.dirname, "../../../../src/functions/floor/index.mts")],
    outfile: floorModule,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    metafile: true,
    logLevel: "warning",
    define: { WARPSTART_FUNCTION: '"Floor"', WARPSTART_PROFILE: '"Optimized"' },
  });
  bundleInputs = Object.keys(result.metafile.inputs);
  writeFileSync(join(workDir, "run.mjs"), RUNNER);
  writeFileSync(join(workDir, "empty.mjs"), "");
}, 60_000); // gunicorn's start; jest applies only a global testTimeout, 5 s by default
afterAll(async () => {
  await aws?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

async function run(module: string, endpoint = aws.endpoint): Promise<RunResult> {
  const { stdout } = await promisify(execFile)(NODE22, [join(workDir, "run.mjs"), module], {
    timeout: 30_000,
    env: {
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "AKIAIOSFODNN7EXAMPLE",
      AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      AWS_SESSION_TOKEN: "warpstart-lab-session",
      AWS_ENDPOINT_URL_STS: endpoint,
      NODE_EXTRA_CA_CERTS: aws.caFile,
      PATH: `${process.env.PATH}`,
    },
  });
  return JSON.parse(stdout) as RunResult;
}

function initError(result: RunResult): string {
  if (result.ok) throw new Error("INIT succeeded, but it should have failed");
  return result.error;
}

/** An HTTPS server on 127.0.0.1 with the local AWS's certificate, so the function trusts it. */
async function stubSts(answer: RequestListener): Promise<{ endpoint: string; server: HttpsServer }> {
  const certDir = dirname(aws.caFile);
  const server = createHttpsServer({ cert: readFileSync(join(certDir, "server.pem")), key: readFileSync(join(certDir, "server.key")) }, answer);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { endpoint: `https://127.0.0.1:${port}`, server };
}

function stopStub(server: HttpsServer): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

it("bundles no dependency: only the project's own sources", () => {
  expect(bundleInputs.filter((input) => input.includes("node_modules"))).toEqual([]);
});

it("answers with the masked identity from the local AWS, called once during INIT", async () => {
  const result = await run(floorModule);
  if (!result.ok) throw new Error(`INIT failed: ${result.error}`);
  const [first, second] = result.responses.map((response) => {
    expect(response.statusCode).toBe(200);
    expect(response.body).not.toContain("123456789012");
    return JSON.parse(response.body);
  });
  expect(first).toMatchObject({
    account: MASKED_ACCOUNT_ID,
    arn: `arn:aws:sts::${MASKED_ACCOUNT_ID}:user/moto`,
    userId: "AKIAIOSFODNN7EXAMPLE",
    coldstart: true,
    function: "Floor",
    profile: "Optimized",
    sdkVersion: "none",
    nodeVersion: `v${RUNTIMES.node22.version}`,
    path: "/floor",
    lambdaRequestId: "r1",
  });
  expect(first.stsRequestId).toMatch(/^\w{20,}$/);
  expect(first.initStsCallMs).toBeGreaterThan(0);
  expect(first.artifactBytes).toBeGreaterThan(0);
  expect(second).toMatchObject({ coldstart: false, lambdaRequestId: "r2", stsRequestId: first.stsRequestId, initStsCallMs: first.initStsCallMs });
});

it("loads only the builtins an HTTPS call needs", async () => {
  const [floor, empty] = await Promise.all([run(floorModule), run(join(workDir, "empty.mjs"))]);
  if (!floor.ok || !empty.ok) throw new Error("a run failed");
  const loadedByEmptyModule = new Set(empty.builtins);
  const loadedByFloor = floor.builtins.filter((builtin) => !loadedByEmptyModule.has(builtin));
  expect(loadedByFloor).toContain("https");
  // What the SDK's HTTP handler and parsers bring in, and what Floor's own code avoids.
  for (const unneeded of [
    "http2",
    "zlib",
    "internal/deps/undici/undici",
    "worker_threads",
    "internal/webstreams/readablestream",
    "perf_hooks",
    "internal/crypto/webcrypto",
  ]) {
    expect(loadedByFloor).not.toContain(unneeded);
  }
});

describe("INIT failures", () => {
  it("names the endpoint when STS is unreachable", async () => {
    const closedPort = await freePort();
    expect(initError(await run(floorModule, `https://127.0.0.1:${closedPort}`))).toMatch(
      new RegExp(`^STS GetCallerIdentity failed during INIT \\(endpoint https://127\\.0\\.0\\.1:${closedPort}\\): connect ECONNREFUSED`),
    );
  });

  it("gives STS's error Code and Message, for a signed request as the SDK sends it", async () => {
    const received: { method?: string; headers?: Record<string, unknown>; body?: string } = {};
    const { endpoint, server } = await stubSts((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk));
      req.on("end", () => {
        Object.assign(received, { method: req.method, headers: req.headers, body });
        res.writeHead(403, { "content-type": "text/xml" });
        res.end(
          '<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>InvalidClientTokenId</Code>' +
            "<Message>The security token included in the request is invalid.</Message></Error><RequestId>req-1</RequestId></ErrorResponse>",
        );
      });
    });
    try {
      expect(initError(await run(floorModule, endpoint))).toBe(
        `STS GetCallerIdentity failed during INIT (endpoint ${endpoint}): InvalidClientTokenId: The security token included in the request is invalid.`,
      );
      expect(received).toMatchObject({
        method: "POST",
        body: "Action=GetCallerIdentity&Version=2011-06-15",
        headers: {
          host: endpoint.slice("https://".length),
          "content-type": "application/x-www-form-urlencoded; charset=utf-8",
          "x-amz-security-token": "warpstart-lab-session",
          authorization: expect.stringMatching(
            /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/us-east-1\/sts\/aws4_request, SignedHeaders=content-length;content-type;host;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
          ),
        },
      });
    } finally {
      await stopStub(server);
    }
  });

  it("gives up after its timeout when STS never answers", async () => {
    const { endpoint, server } = await stubSts(() => {});
    try {
      expect(initError(await run(floorModule, endpoint))).toBe(`STS GetCallerIdentity failed during INIT (endpoint ${endpoint}): no answer within 5000 ms`);
    } finally {
      await stopStub(server);
    }
  }, 30_000); // beyond the function's 5 s deadline (jest applies only a global testTimeout)
});
