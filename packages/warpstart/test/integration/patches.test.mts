// Each patch in patches/ earns its place: with it left out of the patched SDK tree (and
// everything else as Optimized builds), INIT loads the builtins it exists to keep out.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildFunction, functionBuild } from "../../builder/build.mts";
import { sdkPatches } from "../../builder/sdk-tree.mts";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { readTemplate } from "../../core/template.mts";
import { servicesOf } from "../../emulation/function-environment.mts";
import { ownLocalAws } from "../../emulation/local-aws/build-services.mts";
import { type LocalAws, startLocalAws } from "../../emulation/local-aws/local-aws.mts";
import { DEMO_TEMPLATE } from "../support/demo.mts";
import { builtFunction, run, succeeded } from "../support/lab.mts";

/**
 * What each patch keeps from loading during INIT, by its name (the part after the sequence
 * number), and the profile that shows it (on the identity function): Optimized, or Warp's
 * CommonJS SDK chunk where Optimized's ES imports of node:crypto load webcrypto anyway.
 */
const KEEPS_OUT: Record<string, { modules: string[]; shownBy: string }> = {
  "lazy-zlib": { modules: ["zlib"], shownBy: "Optimized" },
  "node-streams-skip-webstreams": { modules: ["internal/webstreams/readablestream", "internal/webstreams/writablestream"], shownBy: "Optimized" },
  "global-process": { modules: ["process", "internal/process/report", "internal/process/finalization"], shownBy: "Optimized" },
  "uuid-without-webcrypto": { modules: ["internal/crypto/webcrypto"], shownBy: "Warp-no-codeCache" },
  // process.stdout, created by Readable.pipe's look at it; a file here (run-once.mts).
  "collect-body-without-pipe": { modules: ["internal/fs/sync_write_stream"], shownBy: "Optimized" },
};

let aws: LocalAws;
let scratch: string;
beforeAll(async () => {
  aws = await startLocalAws();
  scratch = mkdtempSync(join(tmpdir(), "warpstart-patches-"));
});
afterAll(async () => {
  await aws?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

it("every patch is tested here and explained in patches/README.md", () => {
  const readme = readFileSync(join(PACKAGE_ROOT, "patches/README.md"), "utf8");
  expect(
    sdkPatches()
      .map((patch) => patch.name)
      .sort(),
  ).toEqual(Object.keys(KEEPS_OUT).sort());
  for (const { file } of sdkPatches()) expect(readme).toContain(file);
});

/** Builds the identity function in a profile, with patches left out, and returns the builtins its INIT loads. */
async function builtinsAtInit(profile: string, leaveOutPatches: string[], outdir: string): Promise<string[]> {
  await buildFunction(functionBuild(readTemplate(DEMO_TEMPLATE), "Optimized", profile), outdir, { initServices: ownLocalAws, leaveOutPatches });
  return succeeded(await run({ ...builtFunction("Optimized"), codeDir: outdir }, servicesOf(aws))).builtinsAtReady;
}

describe.each(sdkPatches().map((patch) => patch.name))("%s", (name) => {
  it("keeps its modules out of INIT", async () => {
    const { modules, shownBy } = KEEPS_OUT[name]!;
    const work = join(scratch, name);
    const withPatch = await builtinsAtInit(shownBy, [], join(work, "with"));
    const withoutPatch = await builtinsAtInit(shownBy, [name], join(work, "without"));

    expect(modules.filter((name) => withPatch.includes(name))).toEqual([]);
    expect(modules.filter((name) => withoutPatch.includes(name))).toEqual(modules);
    expect(withPatch.length).toBeLessThan(withoutPatch.length);
  });
});
