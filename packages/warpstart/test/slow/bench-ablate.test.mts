// npm run bench -- --ablate: Optimized, Warp and Warp without each of its optimizations, each
// built here from the global setup's build of the demo (nine Warp builds, each with its code
// caches: the breadth of the profiles, not the bench's claims, which test/integration/bench.test.mts proves).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readBenchResults } from "../../bench/results.mts";
import { WARP_OPTIMIZATION_NAMES } from "../../builder/profiles.mts";
import { bench } from "../support/bench.mts";

describe("npm run bench -- --ablate --rounds 1", () => {
  it("measures Optimized, Warp and Warp without each optimization, with ratios against Warp", () => {
    const out = mkdtempSync(join(tmpdir(), "warpstart-ablate-"));
    try {
      const run = bench("--no-build", "--ablate", "--rounds", "1", "--out", out);
      expect(run.status).toBe(0);
      const results = readBenchResults(readFileSync(join(out, "results.json"), "utf8"));
      const profiles = ["Optimized", "Warp", ...WARP_OPTIMIZATION_NAMES.map((name) => `Warp-no-${name}`)];
      expect(results.cells.map((cell) => [cell.name, cell.function, cell.profile])).toEqual(profiles.map((profile) => [`Warp/${profile}`, "Warp", profile]));
      expect(results.cells.every((cell) => cell.failures.length === 0 && cell.samples.length === 1)).toBe(true);
      expect(results.versions).toMatchObject({ "V8 code cache (Warp/Warp)": "accepted", "V8 code cache (Warp/Warp-no-noSharedConfigFiles)": "accepted" });
      expect(results.versions["V8 code cache (Warp/Warp-no-codeCache)"]).toBeUndefined();
      expect(run.stdout).toContain("Init Duration vs Warp");
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
