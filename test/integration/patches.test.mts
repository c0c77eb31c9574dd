// Each patch in patches/ earns its place: with it reverted (and everything else as Optimized
// builds), INIT loads the builtins it exists to keep out. And a patch that no longer applies
// fails the install with patch-package's message.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildVariant } from "../../build/build.mts";
import { PROJECT_ROOT } from "../../lab/paths.mts";
import { type LocalSts, startLocalSts } from "../../lab/sts/local-sts.mts";
import { builtFunction, run, succeeded } from "../support/lab.mts";

const PATCHES = join(PROJECT_ROOT, "patches");
const patchFiles = readdirSync(PATCHES).filter((file) => file.endsWith(".patch"));

/** What each patch keeps from loading during INIT, by its name (the part after the sequence number). */
const KEEPS_OUT: Record<string, string[]> = {
  "lazy-zlib": ["zlib"],
  "node-streams-skip-webstreams": ["internal/webstreams/readablestream", "internal/webstreams/writablestream"],
  "global-process": ["process", "internal/process/report", "internal/process/finalization"],
};
const patchName = (file: string) => /\+\d{3}\+(.+)\.patch$/.exec(file)?.[1] ?? file;

let sts: LocalSts;
let scratch: string;
beforeAll(async () => {
  sts = await startLocalSts();
  scratch = mkdtempSync(join(tmpdir(), "warpstart-patches-"));
});
afterAll(async () => {
  await sts?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

it("every patch is tested here and explained in patches/README.md", () => {
  const readme = readFileSync(join(PATCHES, "README.md"), "utf8");
  expect(patchFiles.map(patchName).sort()).toEqual(Object.keys(KEEPS_OUT).sort());
  for (const file of patchFiles) expect(readme).toContain(file);
});

describe.each(patchFiles)("%s", (file) => {
  it("keeps its modules out of INIT", async () => {
    const withPatch = succeeded(await run(builtFunction("Optimized"), sts)).builtinsAtReady;

    // The patched SDK tree with only this patch taken back out.
    const tree = join(scratch, patchName(file));
    mkdirSync(tree);
    writeFileSync(join(tree, "package.json"), "{}");
    cpSync(join(PATCHES, "node_modules"), join(tree, "node_modules"), { recursive: true });
    execFileSync("git", ["apply", "--reverse", join(PATCHES, file)], { cwd: tree });
    const outdir = join(tree, "build");
    await buildVariant("Optimized", outdir, { sdkTree: tree });
    const withoutPatch = succeeded(await run({ ...builtFunction("Optimized"), codeDir: outdir }, sts)).builtinsAtReady;

    const keptOut = KEEPS_OUT[patchName(file)]!;
    expect(keptOut.filter((name) => withPatch.includes(name))).toEqual([]);
    expect(keptOut.filter((name) => withoutPatch.includes(name))).toEqual(keptOut);
    expect(withPatch.length).toBeLessThan(withoutPatch.length);
  });
});

it("a patch that no longer applies fails the install, naming the package and the patch", () => {
  // A newer @smithy/core whose Crc32Node.js changed: the lazy-zlib patch no longer fits.
  const app = join(scratch, "drifted");
  const target = join(app, "node_modules/@smithy/core");
  cpSync(join(PROJECT_ROOT, "node_modules/@smithy/core"), target, { recursive: true });
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
