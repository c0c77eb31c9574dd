// An app in SAM's own shapes (test/fixtures/sam-apps/sam-shapes), on a copy of it, as a user has
// it: one real `sam build` of it and one lab serving it, where each function `sam local invoke`
// would run (given Docker) answers, its build SAM's or the pipeline's as the template says; and
// `npx warpstart invoke` itself for what only the command does (serving SAM's build as it is, a
// bad --env-vars file).
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fellBackIn } from "../../builder/build.mts";
import { builtTemplateOf, NODE22, PACKAGE_ROOT, STATE_DIR } from "../../core/paths.mts";
import { RUNTIMES } from "../../core/runtimes.mts";
import { type Lab, startLab } from "../../lab/lab.mts";
import { samBuild } from "../../lab/sam.mts";
import { TOOLS_ENV } from "../support/as-lambda.mts";
import { WARPSTART } from "../support/warpstart.mts";

// Inside the package, where its functions' imports find the SDK the repository installs; the package linked as an app installs it.
mkdirSync(STATE_DIR, { recursive: true });
const app = mkdtempSync(join(STATE_DIR, "sam-shapes-"));
cpSync(join(PACKAGE_ROOT, "test/fixtures/sam-apps/sam-shapes"), app, { recursive: true });
mkdirSync(join(app, "node_modules"));
symlinkSync(PACKAGE_ROOT, join(app, "node_modules/warpstart"));
const template = join(app, "template.yaml");
// The parent's Stage, which its nested application is given, and a layer's ARN without which sam build fails; the values the lab cannot make, from --env-vars's file.
const parameterOverrides = { Stage: "prod", FxLayerArn: "arn:aws:lambda:us-east-1:111122223333:layer:fx-rates:3" };
const envVars = { Parameters: { PRICE_LIST: "arn:aws:s3:::prices/list.json" } };

let built: string;
let lab: Lab;
beforeAll(async () => {
  built = await samBuild({ template, quiet: true, parameterOverrides });
  lab = await startLab({ template: builtTemplateOf(template), parameterOverrides, envVars });
}, 400_000);
afterAll(async () => {
  await lab?.stop();
  rmSync(app, { recursive: true, force: true });
});

/** One invoke of a function the lab serves: its answer, or its error. */
async function answerOf(name: string, event: unknown = {}): Promise<unknown> {
  const { payload } = await lab.lambda.invoke(name, Buffer.from(JSON.stringify(event)));
  return JSON.parse(payload.toString("utf8"));
}

/** `npx warpstart invoke` in the app's folder: its exit status, its answer (parsed), what it said on stderr. */
function invoke(...args: string[]): { status: number | null; answer: unknown; said: string } {
  const run = spawnSync(NODE22, [WARPSTART, "invoke", ...args], { cwd: app, encoding: "utf8", timeout: 240_000, env: TOOLS_ENV });
  let answer: unknown = run.stdout;
  try {
    answer = JSON.parse(run.stdout);
  } catch {}
  return { status: run.status, answer, said: run.stderr };
}

it("SAM's esbuild builder with EntryPoints below the CodeUri: invoke serves it as sam build left it, not built again by the pipeline", async () => {
  expect(await answerOf("Quote", { grams: 600 })).toEqual({ quote: 4.5 });
  const run = invoke("Quote", "--event", join(app, "quote/event.json"));
  expect(run).toMatchObject({ status: 0, answer: { quote: 4.5 } });
  expect(run.said).not.toContain("== sam build");
  expect(run.said).not.toContain("== building Quote");
}, 240_000);

it("invoke of a function whose Globals CodeUri another's sam build left as written: built, not taken for built", () => {
  const template = join(app, "shared-code/template.yaml");
  expect(invoke("First", "--template", template)).toMatchObject({ status: 0, answer: { first: true } });
  const second = invoke("Second", "--template", template);
  expect(second).toMatchObject({ status: 0, answer: { second: true } });
  expect(second.said).toContain("== sam build Second (it has not been built)");
}, 240_000);

describe("a nested application", () => {
  it("its function, by SAM's name: on its own runtime, with the parameters the parent gives it and its own resources", async () => {
    expect(await answerOf("Parcels/Tracker")).toEqual({
      table: "warpstart-lab-Parcels-Table",
      stage: "prod-post",
      tier: "gold",
      node: `v${RUNTIMES.node20.version}`,
    });
  });

  it("the parent reads its output, and a function nested two deep answers", async () => {
    expect(await answerOf("Gateway")).toEqual({ parcelsTable: "warpstart-lab-Parcels-Table" });
    expect(await answerOf("Parcels/Labels/Printer")).toEqual({ printed: true });
  });

  it("invoke, nothing built yet, of a function given its layer by a sibling application: the whole app built, as SAM can build it", () => {
    const run = invoke("Greeter/Function", "--template", join(app, "layered/template.yaml"));
    expect(run).toMatchObject({ status: 0, answer: { greeting: "hello from the layer" } });
    expect(run.said).toContain("== sam build, the whole app: Greeter/Function is nested in it (nothing built yet)");
  }, 240_000);
});

describe("values the lab cannot make", () => {
  it("an attribute the local AWS does not model and a parameter without a value get placeholders, said once per function", async () => {
    expect(await answerOf("Checkout")).toMatchObject({
      sessionsHost: "warpstart-placeholder.sessions-redisendpoint-address.invalid",
      priceList: "arn:aws:s3:::prices/list.json",
    });
    expect(lab.placeholders.get("Checkout")).toBe(
      "the lab cannot make the value of SESSIONS_HOST (!GetAtt Sessions.RedisEndpoint.Address: warpstart-placeholder.sessions-redisendpoint-address.invalid), so it gets a placeholder; " +
        `give your own in ${join(app, "local-aws/env-vars.json").replace(`${process.cwd()}/`, "")} or an --env-vars file, as sam local invoke takes it: {"Checkout":{"SESSIONS_HOST":"..."}}`,
    );
  });

  it("an --env-vars file that is not the format sam local invoke takes says what is wrong, and nothing starts", () => {
    const values = join(app, "bad-values.json");
    writeFileSync(values, JSON.stringify({ Checkout: ["SESSIONS_HOST"] }));
    const run = invoke("Checkout", "--env-vars", values);
    expect(run.status).toBe(2);
    expect(run.said).toContain(
      `error: --env-vars ${values}: Checkout is not an object of NAME → value; the file is an object of {"<LogicalId>": {"NAME": "value"}, "Parameters": {"NAME": "value"}}, as sam local invoke --env-vars takes it`,
    );
    expect(run.said).not.toContain("starting the local AWS");
  });
});

describe("a Warp build whose build-time INIT cannot run: never a failed sam build", () => {
  it("an INIT that fails once the chunk is loaded: the cache of what it compiled until then, and the line that says so", () => {
    expect(built).toContain(
      `Stops: its code cache holds what INIT compiled until it failed: Warp builds Stops's V8 code cache by running its INIT, against a local AWS that holds only ${template}'s resources, and that INIT failed. (Error: PRICE_LIST is not an ARN: warpstart-placeholder.pricelistarn.invalid)`,
    );
    expect(built).toMatch(/^Stops: its build-time INIT ran with placeholders: the lab cannot make the value of PRICE_LIST \(the parameter PriceListArn: /m);
    expect(existsSync(join(app, ".aws-sam/build/Stops/checkout/sdk.x64.cache"))).toBe(process.arch === "x64");
  });

  it("an INIT that never loads the chunk: the function's Optimized build, and why", () => {
    const why = fellBackIn(join(app, ".aws-sam/build/Lazy"));
    expect(why).toMatch(/^Warp cannot build Lazy's V8 code cache: neither its INIT nor an invoke with its event loads any of the packages it imports/);
    expect(built).toContain(`Lazy: Warp could not make its code cache, so it is built as Optimized: ${why}`);
    expect(existsSync(join(app, ".aws-sam/build/Lazy/checkout/sdk.cjs"))).toBe(false);
  });
});

describe("layers", () => {
  it("a layer's file imported by its absolute path under /opt: left to run time by the build, found in the layer by the lab", async () => {
    expect(await answerOf("Pricing")).toEqual({ currency: "EUR", region: "us-east-1" });
  });

  it("a layer another account publishes, whose content the app gives in local-aws/layers/<name>/", async () => {
    expect(await answerOf("Convert")).toEqual({ eurToUsd: 1.1 });
  });
});

it("functions adopted from SAM's npm builder whose package nothing installed: sam build installs it in place once, as that builder did", async () => {
  // Built at the same time (--parallel): whichever came second waited for the first's install.
  expect(built.match(/^(Tally|TallyLines): installed tally\/node_modules \(npm install --omit=dev\), as SAM's npm builder did$/gm)).toHaveLength(1);
  expect(await answerOf("Tally", { text: "a b c d" })).toEqual({ words: 4 });
  expect(await answerOf("TallyLines", { text: "a b\nc" })).toEqual({ lines: [2, 1] });
});

describe("CloudFormation's own function type (AWS::Lambda::Function)", () => {
  it("its Code a folder: built by sam build and answering, with its own settings and no Globals", async () => {
    expect(await answerOf("Notify")).toEqual({ notified: true, memory: "192" });
  });

  it("its code inline: run as Lambda deploys it, its custom resource's Create request answered through the cfn-response module Lambda gives it", async () => {
    expect(lab.refused.has("Inline")).toBe(false);
    const [created] = lab.customResources;
    expect(created).toMatch(
      /^InlineMade \(Custom::InlineMade\): the Create request went to its provider, and Inline's response to CloudFormation \(the PUT to its ResponseURL\): /,
    );
    expect(JSON.parse(created!.replace(/^[^{]*/, ""))).toMatchObject({
      Status: "SUCCESS",
      PhysicalResourceId: "inline-made",
      LogicalResourceId: "InlineMade",
      Data: { Greeting: "hello" },
    });
    expect(await answerOf("Inline")).toEqual({ inline: true });
  });
});
