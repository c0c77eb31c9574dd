// Every optimization keeps what the function does: with the clock stopped at one instant and the
// randomness fixed (fixed-clock.mjs), each build of a function (Bundled, Optimized, Warp, and Warp
// without each of its optimizations) sends Optimized's INIT request to AWS byte for byte (request
// line, every header with the signature, the body) and gives Optimized's answer. The tests, for the
// functions a test file names: test/integration/request-bytes.test.mts (the demo's STS) and
// test/slow/request-bytes.test.mts (the examples' other services).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { buildFunction, functionBuild } from "../../builder/build.mts";
import { profileNamed, warpAblations } from "../../builder/profiles.mts";
import { builtTemplateOf } from "../../core/paths.mts";
import { RUNTIMES } from "../../core/runtimes.mts";
import { readTemplate } from "../../core/template.mts";
import { functionEvent } from "../../emulation/events.mts";
import { accessKeyFor } from "../../emulation/function-environment.mts";
import { ownLocalAws } from "../../emulation/local-aws/build-services.mts";
import { type LocalAws, startLocalAws } from "../../emulation/local-aws/local-aws.mts";
import { createResources } from "../../emulation/local-aws/resources.mts";
import { DEMO_TEMPLATE, EXAMPLES_TEMPLATE } from "./demo.mts";
import { succeeded } from "./lab.mts";
import { type RequestRecorder, startRequestRecorder } from "./request-recorder.mts";
import { runOnce } from "./run-once.mts";

/** The instant every INIT sees: now, so the local AWS gets requests signed at about its own time. */
const CLOCK = Date.now();
const FIXED_CLOCK = pathToFileURL(join(import.meta.dirname, "fixed-clock.mjs")).href;
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
/** The demo's Warp function, whose INIT calls STS. */
export const DEMO_STS: ComparedFunction = {
  template: DEMO_TEMPLATE,
  name: "Warp",
  service: "sts",
  samBuilt: { Bundled: "Bundled", Optimized: "Optimized", Warp: "Warp" },
};
/** The examples, whose INITs call SSM, Secrets Manager and DynamoDB. */
export const EXAMPLE_SERVICES: ComparedFunction[] = [
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

let recorder: RequestRecorder;
let scratch: string;

/** A build of the function in a profile: sam build's if it made one, else one made here; and the function it was built as. */
async function buildOf(compared: ComparedFunction, profile: string): Promise<{ codeDir: string; builtAs: string }> {
  const samBuilt = compared.samBuilt[profile];
  if (samBuilt) {
    const built = readTemplate(builtTemplateOf(compared.template)).functions.find((fn) => fn.logicalId === samBuilt)!;
    return { codeDir: built.codeDir, builtAs: samBuilt };
  }
  const outdir = join(scratch, compared.name, profile);
  await buildFunction(functionBuild(readTemplate(compared.template), compared.name, profile), outdir, { initServices: ownLocalAws });
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

/** The tests, for each of `functions`: one local AWS with the template's resources, recorded, for all of them. */
export function requestBytesTests(functions: ComparedFunction[]): void {
  let aws: LocalAws;
  beforeAll(async () => {
    aws = await startLocalAws();
    for (const template of new Set(functions.map((fn) => fn.template))) await createResources(readTemplate(template), aws);
    recorder = await startRequestRecorder(aws);
    scratch = mkdtempSync(join(tmpdir(), "warpstart-request-bytes-"));
  });
  afterAll(async () => {
    await recorder?.close();
    await aws?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  describe.each(functions)("$name ($service)", (target) => {
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
}
