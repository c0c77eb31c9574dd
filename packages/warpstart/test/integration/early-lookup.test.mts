// Warp's early lookup in a real INIT: the SDK's connection to the local AWS (by name, as a lab
// function reaches it) takes the answer of a lookup that began before the SDK chunk loaded; built
// without it, the lookup begins after. That the request stays the same is request-bytes.test.mts's.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { buildFunction, functionBuild } from "../../builder/build.mts";
import { readTemplate } from "../../core/template.mts";
import { ownLocalAws } from "../../emulation/local-aws/build-services.mts";
import { type LocalAws, startLocalAws } from "../../emulation/local-aws/local-aws.mts";
import { SDK_CHUNK_CHANNEL } from "../../src/contract.mts";
import { DEMO_TEMPLATE } from "../support/demo.mts";
import { builtFunction, succeeded } from "../support/lab.mts";
import { type RequestRecorder, startRequestRecorder } from "../support/request-recorder.mts";
import { runOnce } from "../support/run-once.mts";

const SPY = pathToFileURL(join(import.meta.dirname, "../support/lookup-spy.mjs")).href;
const CHUNK = ["chunk started", "chunk compiled", "chunk evaluated"];

let aws: LocalAws;
let recorder: RequestRecorder;
let scratch: string;
beforeAll(async () => {
  aws = await startLocalAws();
  recorder = await startRequestRecorder(aws);
  scratch = mkdtempSync(join(tmpdir(), "warpstart-early-lookup-"));
});
afterAll(async () => {
  await recorder?.close();
  await aws?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The lookups and the chunk's steps of one INIT and invoke of Warp's handler built from `codeDir`, in order. */
async function eventsOf(codeDir: string): Promise<string[]> {
  const out = join(scratch, "events.json");
  succeeded(
    await runOnce({ ...builtFunction("Warp"), codeDir }, {}, recorder.services, [
      "--import",
      `${SPY}?${new URLSearchParams({ out, channel: SDK_CHUNK_CHANNEL })}`,
    ]),
  );
  return JSON.parse(readFileSync(out, "utf8")) as string[];
}

it("looks the service up before the SDK chunk loads, once", async () => {
  expect(await eventsOf(builtFunction("Warp").codeDir)).toEqual(["lookup localhost", ...CHUNK]);
});

it("without it, the SDK looks the service up after the chunk has loaded", async () => {
  const outdir = join(scratch, "Warp-no-earlyLookup");
  await buildFunction(functionBuild(readTemplate(DEMO_TEMPLATE), "Warp", "Warp-no-earlyLookup"), outdir, { initServices: ownLocalAws });
  expect(await eventsOf(outdir)).toEqual([...CHUNK, "lookup localhost"]);
}, 300_000);
