// The build cache (builder/build-cache.mts): a build is given back, artifact, lab overlay and
// metafile, when its recipe is the same and every file it read is as it was; never when one of
// them changed, nor when the cache is off.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUILD_CACHE_VARIABLE, keepBuild, type Recipe, restoreBuild } from "../../builder/build-cache.mts";
import { labOverlayOf } from "../../emulation/function-environment.mts";

let dir: string;
let input: string;
const saved = process.env[BUILD_CACHE_VARIABLE];
const recipe: Recipe = {
  profileName: "Warp",
  fn: { logicalId: "Fn", handler: "index.handler" },
  resources: [],
  deployedRuntime: "node22",
  layerPackages: [],
  alsoReads: [],
};

/** A finished build as buildFunction leaves it: the artifact, its lab overlay and its metafile, which names `input`. */
function build(outdir: string, handler: string): { outfile: string; metafile: string } {
  mkdirSync(outdir, { recursive: true });
  writeFileSync(join(outdir, "index.mjs"), handler);
  mkdirSync(labOverlayOf(outdir), { recursive: true });
  writeFileSync(join(labOverlayOf(outdir), "sdk.x64.cache"), "cache");
  const metafile = `${outdir}.meta.json`;
  writeFileSync(metafile, JSON.stringify({ inputs: { [input]: { bytes: 1 }, "<sdk-chunk>": { bytes: 1 } }, outputs: {} }));
  return { outfile: join(outdir, "index.mjs"), metafile };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "warpstart-build-cache-"));
  input = join(dir, "source.mts");
  writeFileSync(input, "export const handler = 1;");
  process.env[BUILD_CACHE_VARIABLE] = join(dir, "cache");
});
afterEach(() => {
  if (saved === undefined) delete process.env[BUILD_CACHE_VARIABLE];
  else process.env[BUILD_CACHE_VARIABLE] = saved;
  rmSync(dir, { recursive: true, force: true });
});

it("gives a kept build back into another folder, with its overlay, metafile and result, when nothing it read changed", () => {
  const first = build(join(dir, "first"), "built once");
  keepBuild(recipe, join(dir, "first"), first.outfile, first.metafile, { bytes: 10 });
  const again = join(dir, "again");
  expect(restoreBuild(recipe, again)).toEqual({ outfile: join(again, "index.mjs"), metafile: `${again}.meta.json`, result: { bytes: 10 } });
  expect(readFileSync(join(again, "index.mjs"), "utf8")).toBe("built once");
  expect(readFileSync(join(labOverlayOf(again), "sdk.x64.cache"), "utf8")).toBe("cache");
  expect(existsSync(`${again}.meta.json`)).toBe(true);
});

it("gives nothing back once a file the build read has changed, nor for another recipe", () => {
  const first = build(join(dir, "first"), "built once");
  keepBuild(recipe, join(dir, "first"), first.outfile, first.metafile, { bytes: 10 });
  expect(restoreBuild({ ...recipe, profileName: "Optimized" }, join(dir, "other"))).toBeNull();
  writeFileSync(input, "export const handler = 2;");
  expect(restoreBuild(recipe, join(dir, "again"))).toBeNull();
  expect(existsSync(join(dir, "again"))).toBe(false);
});

it("gives nothing back once a file the build reads besides its bundle (the first invoke's event) has changed", () => {
  const event = join(dir, "event.json");
  writeFileSync(event, '{"id":1}');
  const withEvent = { ...recipe, alsoReads: [event] };
  const first = build(join(dir, "first"), "built once");
  keepBuild(withEvent, join(dir, "first"), first.outfile, first.metafile, { bytes: 10 });
  expect(restoreBuild(withEvent, join(dir, "same"))?.result).toEqual({ bytes: 10 });
  writeFileSync(event, '{"id":2}');
  expect(restoreBuild(withEvent, join(dir, "again"))).toBeNull();
});

it("keeps the last build of a recipe, and nothing when the cache is off", () => {
  const first = build(join(dir, "first"), "built once");
  keepBuild(recipe, join(dir, "first"), first.outfile, first.metafile, { bytes: 10 });
  writeFileSync(input, "export const handler = 2;");
  const second = build(join(dir, "second"), "built twice");
  keepBuild(recipe, join(dir, "second"), second.outfile, second.metafile, { bytes: 20 });
  expect(restoreBuild(recipe, join(dir, "again"))?.result).toEqual({ bytes: 20 });
  expect(readFileSync(join(dir, "again", "index.mjs"), "utf8")).toBe("built twice");

  process.env[BUILD_CACHE_VARIABLE] = "off";
  expect(restoreBuild(recipe, join(dir, "off"))).toBeNull();
});

it("removes an entry no build has used for a week when it keeps another", () => {
  const first = build(join(dir, "first"), "built once");
  keepBuild(recipe, join(dir, "first"), first.outfile, first.metafile, { bytes: 10 });
  const [old] = readdirSync(join(dir, "cache"));
  const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000);
  utimesSync(join(dir, "cache", old!, "entry.json"), eightDaysAgo, eightDaysAgo);
  const other = build(join(dir, "other"), "another function");
  keepBuild({ ...recipe, fn: { logicalId: "Other" } }, join(dir, "other"), other.outfile, other.metafile, { bytes: 5 });
  expect(readdirSync(join(dir, "cache"))).toHaveLength(1);
  expect(restoreBuild(recipe, join(dir, "again"))).toBeNull();
});
