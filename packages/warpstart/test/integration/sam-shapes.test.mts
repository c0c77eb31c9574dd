// `npx warpstart invoke` of each function of an app in SAM's own shapes
// (test/fixtures/sam-apps/sam-shapes), on a copy of it, as a user runs it: each one `sam local
// invoke` would run (given Docker) answers, its build SAM's or the pipeline's as the template says.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildFunction, fellBackIn, functionBuild } from "../../builder/build.mts";
import { NODE22, PACKAGE_ROOT, STATE_DIR } from "../../core/paths.mts";
import { RUNTIMES } from "../../core/runtimes.mts";
import { readTemplate } from "../../core/template.mts";
import { ownLocalAws } from "../../emulation/local-aws/build-services.mts";
import { TOOLS_ENV } from "../support/as-lambda.mts";
import { WARPSTART } from "../support/warpstart.mts";

// Inside the package, where its functions' imports find the SDK the repository installs; the package linked as an app installs it.
mkdirSync(STATE_DIR, { recursive: true });
const app = mkdtempSync(join(STATE_DIR, "sam-shapes-"));
cpSync(join(PACKAGE_ROOT, "test/fixtures/sam-apps/sam-shapes"), app, { recursive: true });
mkdirSync(join(app, "node_modules"));
symlinkSync(PACKAGE_ROOT, join(app, "node_modules/warpstart"));
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

describe("values the lab cannot make", () => {
  const PLACEHOLDERS =
    "Checkout: the lab cannot make the values of SESSIONS_HOST (!GetAtt Sessions.RedisEndpoint.Address: warpstart-placeholder.sessions-redisendpoint-address.invalid), PRICE_LIST (the parameter PriceListArn: warpstart-placeholder.pricelistarn.invalid), so they get placeholders; give your own in local-aws/env-vars.json or an --env-vars file, as sam local invoke takes it: " +
    '{"Checkout":{"SESSIONS_HOST":"...","PRICE_LIST":"..."}}';

  it("an attribute the local AWS does not model and a parameter without a value get placeholders, said once", () => {
    const run = invoke("Checkout");
    expect(run).toMatchObject({
      status: 0,
      answer: { sessionsHost: "warpstart-placeholder.sessions-redisendpoint-address.invalid", priceList: "warpstart-placeholder.pricelistarn.invalid" },
    });
    expect(run.said.split("\n").filter((line) => line.includes("placeholder"))).toEqual([PLACEHOLDERS]);
  }, 240_000);

  it("an --env-vars file, as sam local invoke takes it, gives them their values: Parameters' for every function, a function's own over them", () => {
    const values = join(app, "values.json");
    writeFileSync(values, JSON.stringify({ Parameters: { PRICE_LIST: "arn:aws:s3:::prices/list.json" }, Checkout: { SESSIONS_HOST: "127.0.0.1" } }));
    const run = invoke("Checkout", "--env-vars", values);
    expect(run).toMatchObject({ status: 0, answer: { sessionsHost: "127.0.0.1", priceList: "arn:aws:s3:::prices/list.json" } });
    expect(run.said).not.toContain("placeholder");
  }, 240_000);

  it("a file that is not the format says what is wrong, and nothing starts", () => {
    const values = join(app, "bad-values.json");
    writeFileSync(values, JSON.stringify({ Checkout: ["SESSIONS_HOST"] }));
    const run = invoke("Checkout", "--env-vars", values);
    expect(run.status).toBe(2);
    expect(run.said).toContain(
      `error: --env-vars ${values}: Checkout is not an object of NAME → value; the file is an object of {"<LogicalId>": {"NAME": "value"}, "Parameters": {"NAME": "value"}}, as sam local invoke --env-vars takes it`,
    );
    expect(run.said).not.toContain("starting the local AWS");
  }, 60_000);
});

describe("a Warp build whose build-time INIT cannot run: never a failed sam build", () => {
  const template = () => readTemplate(join(app, "template.yaml"));
  const build = (logicalId: string) => buildFunction(functionBuild(template(), logicalId), join(app, "out", logicalId), { initServices: ownLocalAws });

  it("an INIT that fails once the chunk is loaded: the cache of what it compiled until then, and the line that says so", async () => {
    const result = await build("Stops");
    const stoppedBy = `Warp builds Stops's V8 code cache by running its INIT, against a local AWS that holds only ${join(app, "template.yaml")}'s resources, and that INIT failed. (Error: PRICE_LIST is not an ARN: warpstart-placeholder.pricelistarn.invalid)`;
    expect(result.codeCache).toMatchObject({ stoppedBy });
    expect(result.notes).toEqual(
      expect.arrayContaining([
        `its code cache holds what INIT compiled until it failed: ${stoppedBy}`,
        expect.stringMatching(/^its build-time INIT ran with placeholders: the lab cannot make the value of PRICE_LIST \(the parameter PriceListArn: /),
      ]),
    );
  }, 240_000);

  it("an INIT that never loads the chunk: the function's Optimized build, and why", async () => {
    const result = await build("Lazy");
    expect(result.codeCache).toBeUndefined();
    expect(result.fellBack).toMatch(
      /^Warp cannot build Lazy's V8 code cache: neither its INIT nor an invoke with its event loads any of the packages it imports/,
    );
    expect(result.notes![0]).toBe(`Warp could not make its code cache, so it is built as Optimized: ${result.fellBack}`);
    expect(existsSync(join(app, "out/Lazy/checkout/sdk.cjs"))).toBe(false);
    expect(fellBackIn(join(app, "out/Lazy"))).toBe(result.fellBack);
  }, 240_000);
});

describe("layers", () => {
  it("a layer's file imported by its absolute path under /opt: left to run time by the build, found in the layer by the lab", () => {
    expect(invoke("Pricing")).toMatchObject({ status: 0, answer: { currency: "EUR", region: "us-east-1" } });
  }, 240_000);

  it("a layer another account publishes, whose content the app gives in local-aws/layers/<name>/", () => {
    expect(invoke("Convert")).toMatchObject({ status: 0, answer: { eurToUsd: 1.1 } });
  }, 240_000);
});

describe("CloudFormation's own function type (AWS::Lambda::Function)", () => {
  it("its Code a folder: built by sam build and answering, with its own settings and no Globals", () => {
    expect(invoke("Notify")).toMatchObject({ status: 0, answer: { notified: true, memory: "192" } });
  }, 240_000);

  it("its code inline: one line saying that sam local invoke does not run it either, and where to put it", () => {
    const run = invoke("Inline");
    expect(run.status).toBe(1);
    expect(run.said).toContain("Inline: its code is inline (Code.ZipFile), which sam local invoke does not run either: put it in a file its CodeUri names");
  }, 240_000);
});
