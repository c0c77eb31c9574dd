// Warp's chunk shared within a sam build (builder/shared-chunks.mts): the second function whose
// chunk has the same recipe gets a copy of the first one's, named where it is written; a chunk
// whose files changed, or another recipe, is built; a build SAM does not run shares nothing.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { Metafile } from "esbuild";
import { sharedChunk, sharedChunksDir } from "../../builder/shared-chunks.mts";
import { PACKAGE_ROOT } from "../../core/paths.mts";

let build: string;
let input: string;
const saved = process.env.ARTIFACTS_DIR;
const recipe = { options: { stdin: { contents: 'export * from "@aws-sdk/client-sts";' } }, tree: "published" };

beforeEach(() => {
  build = mkdtempSync(join(tmpdir(), "warpstart-shared-chunks-"));
  input = join(build, "client.js");
  writeFileSync(input, "exports.client = 1;");
});
afterEach(() => {
  if (saved === undefined) delete process.env.ARTIFACTS_DIR;
  else process.env.ARTIFACTS_DIR = saved;
  rmSync(build, { recursive: true, force: true });
});

/** The chunk of one function of the sam build, written as esbuild writes it: the chunk beside its map, and a metafile naming `input`. */
async function chunkOf(logicalId: string, chunkRecipe: unknown = recipe): Promise<{ metafile: Metafile; built: boolean; chunk: string }> {
  const outdir = join(build, logicalId);
  process.env.ARTIFACTS_DIR = outdir;
  const chunk = join(outdir, "src/sdk.cjs");
  mkdirSync(join(outdir, "src"), { recursive: true });
  let built = false;
  const metafile = await sharedChunk(sharedChunksDir(outdir), chunkRecipe, chunk, async () => {
    built = true;
    const text = `/* ${readFileSync(input, "utf8")} */`;
    writeFileSync(chunk, text);
    writeFileSync(`${chunk}.map`, "{}");
    return {
      inputs: { [input]: { bytes: 1, imports: [] }, "<sdk-chunk>": { bytes: 1, imports: [] } },
      outputs: {
        [relative(PACKAGE_ROOT, chunk)]: { bytes: text.length, imports: [], exports: [], inputs: {} },
        [relative(PACKAGE_ROOT, `${chunk}.map`)]: { bytes: 2, imports: [], exports: [], inputs: {} },
      },
    };
  });
  return { metafile, built, chunk };
}

it("gives a second function of the same sam build a copy of the first one's chunk, its outputs named where this build wrote them", async () => {
  const first = await chunkOf("First");
  const second = await chunkOf("Second");
  expect([first.built, second.built]).toEqual([true, false]);
  expect(readFileSync(second.chunk, "utf8")).toBe("/* exports.client = 1; */");
  expect(readFileSync(`${second.chunk}.map`, "utf8")).toBe("{}");
  expect(Object.keys(second.metafile.outputs)).toEqual([relative(PACKAGE_ROOT, second.chunk), relative(PACKAGE_ROOT, `${second.chunk}.map`)]);
  expect(second.metafile.inputs).toEqual(first.metafile.inputs);
  // Kept beside the artifacts, in the folder SAM empties as its next build starts.
  expect(readdirSync(join(build, ".warpstart-chunks"))).toHaveLength(1);
});

it("builds again when a file the chunk was built from changed, and shares the new one", async () => {
  await chunkOf("First");
  writeFileSync(input, "exports.client = 2;");
  const second = await chunkOf("Second");
  const third = await chunkOf("Third");
  expect([second.built, third.built]).toEqual([true, false]);
  expect(readFileSync(third.chunk, "utf8")).toBe("/* exports.client = 2; */");
});

it("builds a chunk of another recipe, and shares nothing in a build SAM does not run", async () => {
  await chunkOf("First");
  expect((await chunkOf("Second", { ...recipe, tree: "patched" })).built).toBe(true);
  process.env.ARTIFACTS_DIR = join(build, "elsewhere");
  expect(sharedChunksDir(join(build, "First"))).toBeNull();
  delete process.env.ARTIFACTS_DIR;
  expect(sharedChunksDir(join(build, "First"))).toBeNull();
});
