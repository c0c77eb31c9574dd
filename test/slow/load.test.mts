// `npm run load` end to end, short and bounded: a real Artillery run against the lab's HTTP API,
// with provisioned concurrency off and on. No timing assertions: the p99 threshold is turned off
// (on 2 shared cores the opening spike's p99 varies with the machine's load), the
// no-failed-request condition stays.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NODE22, PROJECT_ROOT } from "../../core/paths.mts";
import { templateFunctions } from "../../core/template.mts";
import type { RunSummary } from "../../load_test/run.mts";

it("drives every variant with zero errors, counts cold starts, and provisioned environments serve with PC on", () => {
  const out = mkdtempSync(join(tmpdir(), "warpstart-load-"));
  try {
    const run = spawnSync(
      NODE22,
      [join(PROJECT_ROOT, "load_test/run.mts"), "--no-build", "--duration", "6", "--provisioned", "1", "--max-p99", "off", "--out", out],
      { cwd: PROJECT_ROOT, encoding: "utf8", timeout: 240_000 },
    );
    // the end of its output in the failure message, to see why
    expect({ status: run.status, end: `${run.stdout.slice(-3000)}\n${run.stderr.slice(-2000)}` }).toMatchObject({ status: 0 });
    const { runs } = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as { runs: RunSummary[] };
    expect(runs.map((r) => r.provisionedConcurrency)).toEqual([0, 1]);
    // A scenario per GET route: a function a user added without one is not loaded.
    const variants = templateFunctions(join(PROJECT_ROOT, "template.yaml"))
      .filter((fn) => fn.httpPath)
      .map((fn) => fn.logicalId)
      .sort();
    for (const r of runs) {
      expect(r.checks).toEqual([{ expression: "vusers.failed == 0", passed: true }]);
      expect(r.thresholdsPassed).toBe(true);
      expect(Object.keys(r.variants).sort()).toEqual(variants);
      for (const v of Object.values(r.variants)) {
        expect(v.errors).toBe(0);
        expect(v.requests).toBeGreaterThan(0);
        expect(v.coldStarts).toBeGreaterThanOrEqual(1);
      }
    }
    for (const v of Object.values(runs[0]!.variants)) expect(Object.keys(v.initializationTypes)).toEqual(["on-demand"]);
    for (const v of Object.values(runs[1]!.variants)) expect(v.initializationTypes["provisioned-concurrency"]).toBeGreaterThan(0);
    expect(run.stdout).toContain("provisioned concurrency: 1   thresholds: passed");
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
