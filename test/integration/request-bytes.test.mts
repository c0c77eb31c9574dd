// Every optimization keeps what the function does: with the clock stopped at one instant and the
// randomness fixed (support/fixed-clock.mjs), each build of a function (Bundled, Optimized, Warp,
// and Warp without each of its optimizations) sends Optimized's INIT request to AWS byte for byte
// (request line, every header with the signature, the body) and gives Optimized's answer.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { buildFunction, functionBuild } from "../../builder/build.mts";
import { profileNamed, warpAblations } from "../../builder/profiles.mts";
import { builtTemplateOf, EXAMPLES_TEMPLATE, PROJECT_TEMPLATE } from "../../core/paths.mts";
import { RUNTIMES } from "../../core/runtimes.mts";
import { readTemplate } from "../../core/template.mts";
import { accessKeyFor } from "../../emulation/function-environment.mts";
import { type LocalAws, startLocalAws } from "../../emulation/local-aws/local-aws.mts";
import { createResources } from "../../emulation/local-aws/resources.mts";
import { functionEvent } from "../../lab/events.mts";
import { succeeded } from "../support/lab.mts";
import { type RequestRecorder, startRequestRecorder } from "../support/request-recorder.mts";
import { runOnce } from "../support/run-once.mts";

/** The instant every INIT sees: now, so the local AWS gets requests signed at about its own time. */
const CLOCK = Date.now();
const FIXED_CLOCK = pathToFileURL(join(import.meta.dirname, "../support/fixed-clock.mjs")).href;
const COMPARED = ["Bundled", "Optimized", "Warp", ...Object.keys(warpAblations())];
const BUILD_TIMEOUT_MS = 900_000;

/**
 * A function compared: run as `name` of its template, built in every profile of COMPARED;
 * `samBuilt` names the profiles `sam build` already built, and as which function of the template.
 */
interface ComparedFunction {
  template: string;
  name: string;
  /** The signing name of the service its INIT calls. */
  service: string;
  samBuilt: Record<string, string>;
}
const FUNCTIONS: ComparedFunction[] = [
  { template: PROJECT_TEMPLATE, name: "Warp", service: "sts", samBuilt: { Bundled: "Bundled", Optimized: "Optimized", Warp: "Warp" } },
  { template: EXAMPLES_TEMPLATE, name: "SsmParameter", service: "ssm", samBuilt: { Warp: "SsmParameter" } },
  { template: EXAMPLES_TEMPLATE, name: "Secret", service: "secretsmanager", samBuilt: { Warp: "Secret" } },
  { template: EXAMPLES_TEMPLATE, name: "DynamoDb", service: "dynamodb", samBuilt: { Warp: "DynamoDb" } },
];

/**
 * Answer fields that differ between builds by design: which build answered (checked on their
 * own), its size, the calls' timings, and the request id the local AWS makes up for each call.
 */
const NOT_COMPARED = ["function", "profile", "codeCache", "artifactBytes", "initCallMs", "initStsCallMs", "stsRequestId"];

interface Init {
  /** The bytes INIT sent to AWS, as lines (split at CRLF): the request line, the headers, a blank line, the body. */
  request: string[];
  answer: Record<string, unknown>;
}

/** x-amz-date's form of an instant: 20260102T030405Z. */
const amzDate = (at: number) => new Date(at).toISOString().replace(/[-:]|\.\d{3}/g, "");

/** The one request on a connection, as lines; anything but exactly one request is an error. */
function requestLines(sent: Buffer): string[] {
  const text = sent.toString("latin1");
  const headEnd = text.indexOf("\r\n\r\n");
  const bodyBytes = Number(/^content-length: *(\d+)$/im.exec(text.slice(0, headEnd))?.[1] ?? 0);
  if (headEnd < 0 || text.length !== headEnd + 4 + bodyBytes) throw new Error(`INIT's connection carried something else than one request:\n${text}`);
  return text.split("\r\n");
}

let aws: LocalAws;
let recorder: RequestRecorder;
let scratch: string;
beforeAll(async () => {
  aws = await startLocalAws();
  await createResources(readTemplate(EXAMPLES_TEMPLATE), aws);
  recorder = await startRequestRecorder(aws);
  scratch = mkdtempSync(join(tmpdir(), "warpstart-request-bytes-"));
});
afterAll(async () => {
  await recorder?.close();
  await aws?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** A build of the function in a profile: sam build's if it made one, else one made here; and the function it was built as. */
async function buildOf(compared: ComparedFunction, profile: string): Promise<{ codeDir: string; builtAs: string }> {
  const samBuilt = compared.samBuilt[profile];
  if (samBuilt) {
    const built = readTemplate(builtTemplateOf(compared.template)).functions.find((fn) => fn.logicalId === samBuilt)!;
    return { codeDir: built.codeDir, builtAs: samBuilt };
  }
  const outdir = join(scratch, compared.name, profile);
  await buildFunction(functionBuild(readTemplate(compared.template), compared.name, profile), outdir);
  return { codeDir: outdir, builtAs: compared.name };
}

/** Runs one INIT (and the invoke after it) of a build with the clock at `at`: what it sent and what it answered. */
async function initAt(at: number, compared: ComparedFunction, codeDir: string): Promise<Init> {
  const fn = readTemplate(compared.template).functions.find((candidate) => candidate.logicalId === compared.name)!;
  // One name, handler and event for every build: the same input.
  const spec = { name: fn.logicalId, codeDir, handler: fn.handler, memoryMb: fn.memoryMb, runtime: RUNTIMES.node22 };
  const result = succeeded(await runOnce(spec, functionEvent(fn), recorder.services, ["--import", `${FIXED_CLOCK}?at=${at}`]));
  const connections = recorder.takeSent();
  if (connections.length !== 1) throw new Error(`expected INIT to open one connection to AWS, it opened ${connections.length}`);
  expect(result.response.statusCode).toBe(200);
  return { request: requestLines(connections[0]!), answer: JSON.parse(result.response.body) as Record<string, unknown> };
}

const compared = (answer: Record<string, unknown>) => Object.fromEntries(Object.entries(answer).filter(([field]) => !NOT_COMPARED.includes(field)));

describe.each(FUNCTIONS)("$name ($service)", (target) => {
  const inits = new Map<string, Init & { codeDir: string; builtAs: string }>();
  const init = (profile: string) => inits.get(profile)!;
  beforeAll(async () => {
    for (const profile of COMPARED) {
      const { codeDir, builtAs } = await buildOf(target, profile);
      inits.set(profile, { ...(await initAt(CLOCK, target, codeDir)), codeDir, builtAs });
    }
  }, BUILD_TIMEOUT_MS);

  it("Optimized's request is signed at the fixed instant with the first fixed UUID, for the local AWS", () => {
    const { request } = init("Optimized");
    expect(request[0]).toMatch(/^POST \/ HTTP\/1\.1$/);
    expect(request).toEqual(
      expect.arrayContaining([
        `host: ${new URL(recorder.services.awsByName!.endpoint).host}`,
        `x-amz-date: ${amzDate(CLOCK)}`,
        "amz-sdk-invocation-id: 00000000-0000-4000-8000-000000000001",
        expect.stringMatching(
          new RegExp(
            `^authorization: AWS4-HMAC-SHA256 Credential=${accessKeyFor("0")}/${amzDate(CLOCK).slice(0, 8)}/us-east-1/${target.service}/aws4_request, SignedHeaders=[^,]+, Signature=[0-9a-f]{64}$`,
          ),
        ),
      ]),
    );
  });

  it.each(COMPARED.filter((profile) => profile !== "Optimized"))("%s sends Optimized's request, byte for byte", (profile) => {
    expect(init(profile).request).toEqual(init("Optimized").request);
  });

  it.each(COMPARED.filter((profile) => profile !== "Optimized"))("%s gives Optimized's answer", (profile) => {
    expect(compared(init(profile).answer)).toEqual(compared(init("Optimized").answer));
  });

  it.each(COMPARED)("%s says which build it is, and whether V8 took its code cache", (profile) => {
    const { codeCache, sdkChunk } = profileNamed(profile);
    expect(init(profile).answer).toMatchObject({ function: init(profile).builtAs, profile, codeCache: codeCache && sdkChunk ? "accepted" : "absent" });
  });

  it("can tell requests apart: a clock one second later changes x-amz-date and the signature, and nothing else", async () => {
    const { request: before, codeDir } = init("Optimized");
    const later = await initAt(CLOCK + 1000, target, codeDir);
    expect(later.request).toHaveLength(before.length);
    const changed = later.request.filter((line, i) => line !== before[i]).map((line) => line.slice(0, line.indexOf(":")));
    expect(changed.sort()).toEqual(["authorization", "x-amz-date"]);
  });
});
