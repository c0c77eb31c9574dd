// A build bundles the SDK the app installs, at its versions: the oldest release the package
// supports (3.895.0, what Lambda's nodejs22.x runtime carries, with the dependencies npm gave it
// that day: tools/sdk-oldest) and the newest (the demo's), each in every profile, answer in a
// fresh runtime with the version they were built from. Where a patch or a Warp replacement does
// not fit the older release, the build goes on without it and says so, a line each.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildFunction, functionBuild } from "../../builder/build.mts";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { RUNTIMES } from "../../core/runtimes.mts";
import { readTemplate } from "../../core/template.mts";
import { servicesOf } from "../../emulation/function-environment.mts";
import { ownLocalAws } from "../../emulation/local-aws/build-services.mts";
import { type LocalAws, startLocalAws } from "../../emulation/local-aws/local-aws.mts";
import { DEMO_ROOT } from "../support/demo.mts";
import { installedSdk, succeeded } from "../support/lab.mts";
import { runOnce } from "../support/run-once.mts";

const OLDEST = join(PACKAGE_ROOT, "tools/sdk-oldest");
const OLDEST_VERSION = (JSON.parse(readFileSync(join(OLDEST, "package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies[
  "@aws-sdk/client-sts"
]!;
const PROFILES = ["Bundled", "Optimized", "Warp"];

const TEMPLATE = `Transform: AWS::Serverless-2016-10-31
Globals:
  Function: { Runtime: nodejs22.x, CodeUri: ., MemorySize: 512, Architectures: [x86_64] }
Resources:
${PROFILES.map((profile) => `  ${profile}:\n    Type: AWS::Serverless::Function\n    Metadata: { BuildMethod: makefile, BuildProperties: { Profile: ${profile} } }\n    Properties: { Handler: src/index.handler }`).join("\n")}
`;
// The call at INIT, as the README teaches; the answer names the SDK release the build embedded.
const HANDLER = `import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
const sts = new STSClient({});
const { Account } = await sts.send(new GetCallerIdentityCommand({}));
export const handler = async () => ({ statusCode: 200, body: JSON.stringify({ account: Account, sdk: WARPSTART_SDK_VERSION }) });
`;

let aws: LocalAws;
let scratch: string;
beforeAll(async () => {
  aws = await startLocalAws();
  scratch = mkdtempSync(join(tmpdir(), "warpstart-sdk-versions-"));
});
afterAll(async () => {
  await aws?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** An app whose node_modules is `tree`'s, built in a profile: its notes, and where it was built. */
async function buildIn(tree: string, profile: string) {
  const app = join(scratch, `${tree === OLDEST ? "oldest" : "newest"}`);
  mkdirSync(join(app, "src"), { recursive: true });
  writeFileSync(join(app, "template.yaml"), TEMPLATE);
  writeFileSync(join(app, "src/index.mjs"), HANDLER);
  rmSync(join(app, "node_modules"), { force: true });
  symlinkSync(join(tree, "node_modules"), join(app, "node_modules"));
  const outdir = join(app, "out", profile);
  const { notes = [] } = await buildFunction(functionBuild(readTemplate(join(app, "template.yaml")), profile), outdir, { initServices: ownLocalAws });
  return { notes, outdir };
}

/** That build, run once: its notes and its answer. */
async function buildAndRun(tree: string, profile: string) {
  const { notes, outdir } = await buildIn(tree, profile);
  const spec = { name: profile, codeDir: outdir, handler: "src/index.handler", memoryMb: 512, runtime: RUNTIMES.node22 };
  const { response } = succeeded(await runOnce(spec, {}, servicesOf(aws)));
  return { notes, answer: JSON.parse(response.body) as { account: string; sdk: string } };
}

describe.each([
  { label: "the oldest", tree: OLDEST, version: OLDEST_VERSION },
  { label: "the newest", tree: DEMO_ROOT, version: installedSdk() },
])("$label SDK the package supports ($version)", ({ tree, version }) => {
  it.each(PROFILES)("%s: built from the app's SDK, answers with its version", async (profile) => {
    const { notes, answer } = await buildAndRun(tree, profile);
    expect(answer).toEqual({ account: expect.stringMatching(/^\d{12}$/), sdk: version });
    if (tree === DEMO_ROOT || profile === "Bundled") expect(notes).toEqual([]);
    else expect(notes.length).toBeGreaterThan(0);
  });
});

it("on the oldest, names each patch and replacement that does not fit it, and builds without them", async () => {
  const { notes } = await buildIn(OLDEST, "Warp");
  expect(notes).toEqual([
    "built without the patches that do not fit the SDK the app installs: global-process (made on @aws-sdk/core 3.981.0, the app has 3.894.0); lazy-zlib, node-streams-skip-webstreams, uuid-without-webcrypto, collect-body-without-pipe (made on @smithy/core 3.41.0, the app has 3.12.0)",
    "built without replacing @smithy/core/dist-es/submodules/config/shared-ini-file-loader/readFile.js: the SDK version the app installs has no such file",
  ]);
});

it("the README names the two", () => {
  expect(readFileSync(join(DEMO_ROOT, "README.md"), "utf8").replace(/\s+/g, " ")).toContain(
    `from ${OLDEST_VERSION} (what Lambda's nodejs22.x runtime carries) to ${installedSdk()}`,
  );
});
