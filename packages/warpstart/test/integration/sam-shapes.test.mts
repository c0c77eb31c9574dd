// `npx warpstart invoke` of each function of an app in SAM's own shapes
// (test/fixtures/sam-apps/sam-shapes), on a copy of it, as a user runs it: each one `sam local
// invoke` would run (given Docker) answers, its build SAM's or the pipeline's as the template says.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NODE22, PACKAGE_ROOT } from "../../core/paths.mts";
import { RUNTIMES } from "../../core/runtimes.mts";
import { TOOLS_ENV } from "../support/as-lambda.mts";
import { WARPSTART } from "../support/warpstart.mts";

const app = mkdtempSync(join(tmpdir(), "warpstart-sam-shapes-"));
cpSync(join(PACKAGE_ROOT, "test/fixtures/sam-apps/sam-shapes"), app, { recursive: true });
afterAll(() => rmSync(app, { recursive: true, force: true }));

/** `npx warpstart invoke` in the app's folder: its exit status, its answer (parsed), what it said on stderr. */
function invoke(...args: string[]): { status: number | null; answer: unknown; said: string } {
  const run = spawnSync(NODE22, [WARPSTART, "invoke", ...args], { cwd: app, encoding: "utf8", timeout: 240_000, env: TOOLS_ENV });
  let answer: unknown = run.stdout;
  try {
    answer = JSON.parse(run.stdout);
  } catch {}
  return { status: run.status, answer, said: run.stderr };
}

it("SAM's esbuild builder with EntryPoints below the CodeUri: served as sam build left it, not built again by the pipeline", () => {
  const run = invoke("Quote", "--event", join(app, "quote/event.json"));
  expect(run).toMatchObject({ status: 0, answer: { quote: 4.5 } });
  expect(run.said).toContain("== sam build Quote (nothing built yet)");
  expect(run.said).not.toContain("== building Quote");
}, 240_000);

it("a nested application's function, by SAM's name: on its own runtime, with the parameters the parent gives it and its own resources", () => {
  const run = invoke("Parcels/Tracker", "--parameter-overrides", "Stage=prod");
  expect(run).toMatchObject({
    status: 0,
    answer: { table: "warpstart-lab-Parcels-Table", stage: "prod-post", tier: "gold", node: `v${RUNTIMES.node20.version}` },
  });
  expect(run.said).toContain("== sam build Parcels/Tracker (it has not been built)");
}, 240_000);

it("the parent reads a nested application's output, and a function nested two deep answers", () => {
  expect(invoke("Gateway")).toMatchObject({ status: 0, answer: { parcelsTable: "warpstart-lab-Parcels-Table" } });
  expect(invoke("Parcels/Labels/Printer")).toMatchObject({ status: 0, answer: { printed: true } });
}, 480_000);
