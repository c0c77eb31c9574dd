// The README's main job (npm run local) end to end, minus the setup and build the suite did.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { VARIANT_NAMES } from "../../build/variants.mts";
import { NODE22, PROJECT_ROOT } from "../../lab/paths.mts";

it("prints each variant's masked response and time to ready, then stops", () => {
  const run = spawnSync(NODE22, [join(PROJECT_ROOT, "lab/run-local.mts"), "--skip-build"], { cwd: PROJECT_ROOT, encoding: "utf8", timeout: 90_000 });
  expect(run.status).toBe(0);
  for (const name of VARIANT_NAMES) {
    expect(run.stdout).toContain(`"variant": "${name}"`);
    expect(run.stdout).toMatch(new RegExp(`^${name} +\\d+\\.\\d ms$`, "m"));
  }
  expect(run.stdout).toContain('"account": "************"');
  expect(run.stdout).not.toContain("123456789012");
});
