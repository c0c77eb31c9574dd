// Each patch in patches/ earns its place: with it reverted (and everything else as Optimized
// builds), INIT loads the builtins it exists to keep out. And a patch that no longer applies
// fails the install with patch-package's message.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildFunction, functionBuild } from "../../builder/build.mts";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { readTemplate } from "../../core/template.mts";
import { servicesOf } from "../../emulation/function-environment.mts";
import { type LocalAws, startLocalAws } from "../../emulation/local-aws/local-aws.mts";
import { DEMO_ROOT, DEMO_TEMPLATE } from "../support/demo.mts";
import { builtFunction, run, succeeded } from "../support/lab.mts";

const PATCHES = join(PACKAGE_ROOT, "patches");
const patchFiles = readdirSync(PATCHES).filter((file) => file.endsWith(".patch"));

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
const patchName = (file: string) => /\+\d{3}\+(.+)\.patch$/.exec(file)?.[1] ?? file;

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
  const readme = readFileSync(join(PATCHES, "README.md"), "utf8");
  expect(patchFiles.map(patchName).sort()).toEqual(Object.keys(KEEPS_OUT).sort());
  for (const file of patchFiles) expect(readme).toContain(file);
});

/** Builds the identity function in a profile from an SDK tree and returns the builtins its INIT loads. */
async function builtinsAtInit(profile: string, sdkTree: string, outdir: string): Promise<string[]> {
  await buildFunction(functionBuild(readTemplate(DEMO_TEMPLATE), "Optimized", profile), outdir, { sdkTree });
  return succeeded(await run({ ...builtFunction("Optimized"), codeDir: outdir }, servicesOf(aws))).builtinsAtReady;
}

describe.each(patchFiles)("%s", (file) => {
  it("keeps its modules out of INIT", async () => {
    const { modules, shownBy } = KEEPS_OUT[patchName(file)]!;
    const work = join(scratch, patchName(file));
    const withPatch = await builtinsAtInit(shownBy, PATCHES, join(work, "with"));

    // The patched SDK tree with only this patch taken back out.
    const tree = join(work, "tree");
    mkdirSync(tree, { recursive: true });
    writeFileSync(join(tree, "package.json"), "{}");
    cpSync(join(PATCHES, "node_modules"), join(tree, "node_modules"), { recursive: true });
    // Patches of one file may change neighbouring lines: one line of context suffices to take one out.
    execFileSync("git", ["apply", "--reverse", "-C1", join(PATCHES, file)], { cwd: tree });
    const withoutPatch = await builtinsAtInit(shownBy, tree, join(work, "without"));

    expect(modules.filter((name) => withPatch.includes(name))).toEqual([]);
    expect(modules.filter((name) => withoutPatch.includes(name))).toEqual(modules);
    expect(withPatch.length).toBeLessThan(withoutPatch.length);
  });
});

it("a patch that no longer applies fails the install, naming the package and the patch", () => {
  // A newer @smithy/core whose Crc32Node.js changed: the lazy-zlib patch no longer fits.
  const app = join(scratch, "drifted");
  const target = join(app, "node_modules/@smithy/core");
  cpSync(join(DEMO_ROOT, "node_modules/@smithy/core"), target, { recursive: true });
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "drifted", private: true }));
  const crc32 = join(target, "dist-es/submodules/checksum/crc32/Crc32Node.js");
  writeFileSync(crc32, readFileSync(crc32, "utf8").replace("zlib.crc32 ===", "zlib.crc32c ==="));
  const lazyZlib = patchFiles.find((name) => name.includes("lazy-zlib"))!;
  cpSync(join(PATCHES, lazyZlib), join(app, lazyZlib));

  const install = spawnSync(join(PATCHES, "node_modules/.bin/patch-package"), ["--error-on-fail", "--patch-dir", "."], { cwd: app, encoding: "utf8" });
  expect(install.status).not.toBe(0);
  expect(install.stdout + install.stderr).toContain("**ERROR** Failed to apply patch for package @smithy/core");
  expect(install.stdout + install.stderr).toContain(lazyZlib);
});
