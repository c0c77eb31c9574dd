// One local AWS serves a whole `sam build`: SAM's makefile builder runs `warpstart build` once per
// function, three at once here (--parallel), and each Warp build's INIT asks the template's
// server for the services (emulation/local-aws/build-services.mts): the first build starts it,
// the others find it, and the template's resources are made once; the SDK chunk they share is kept once.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { sharedServer, sharedServerOf } from "../../emulation/local-aws/build-services.mts";
import { samBuild } from "../../lab/sam.mts";
import { SDK_CHUNK_FILE } from "../../src/contract.mts";
import { DEMO_ROOT } from "../support/demo.mts";

const FUNCTIONS = ["First", "Second", "Third"];

let app: string;
beforeAll(() => {
  app = mkdtempSync(join(tmpdir(), "warpstart-build-aws-"));
  mkdirSync(join(app, "src"));
  writeFileSync(
    join(app, "template.yaml"),
    `Transform: AWS::Serverless-2016-10-31
Globals:
  Function: { Runtime: nodejs22.x, CodeUri: ., MemorySize: 512, Architectures: [x86_64] }
Resources:
  Greeting:
    Type: AWS::SSM::Parameter
    Properties: { Name: /build-aws/greeting, Type: String, Value: hello }
${FUNCTIONS.map((name) => `  ${name}:\n    Type: AWS::Serverless::Function\n    Metadata: { BuildMethod: makefile, BuildProperties: { Profile: Warp } }\n    Properties: { Handler: src/index.handler }`).join("\n")}
`,
  );
  // INIT reads the template's parameter: the resources are there for every build.
  writeFileSync(
    join(app, "src/index.mjs"),
    `import { GetParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
const { Parameter } = await new SSMClient({}).send(new GetParameterCommand({ Name: "/build-aws/greeting" }));
export const handler = async () => Parameter.Value;
`,
  );
  writeFileSync(join(app, "Makefile"), `include ${join(PACKAGE_ROOT, "warpstart.mk")}\n`);
  writeFileSync(join(app, "samconfig.toml"), "version = 0.1\n[default.build.parameters]\nbuild_in_source = true\nparallel = true\n");
  symlinkSync(join(DEMO_ROOT, "node_modules"), join(app, "node_modules"));
});
afterAll(() => {
  rmSync(sharedServerOf(join(app, "template.yaml")).log, { force: true });
  rmSync(app, { recursive: true, force: true });
});

it("sam build --parallel of three Warp functions starts one local AWS, which serves the three builds", async () => {
  const template = join(app, "template.yaml");
  // Each build made now, none taken from the build cache (which needs no INIT).
  await samBuild({ template, quiet: true, env: { WARPSTART_BUILD_CACHE: "off" } });
  const { ask, socket } = await sharedServer(template);
  try {
    expect(await ask({ status: true })).toMatchObject({ builds: FUNCTIONS.length });
    const started = readFileSync(sharedServerOf(template).log, "utf8").match(/ the local AWS for /g) ?? [];
    expect(started).toHaveLength(1);
  } finally {
    await ask({ stop: true });
    socket.destroy();
  }
});

it("the three functions, importing the same client, get one chunk, kept for the sam build beside its artifacts", () => {
  const build = join(app, ".aws-sam/build");
  const kept = readdirSync(join(build, ".warpstart-chunks"));
  expect(kept).toHaveLength(1);
  const chunk = readFileSync(join(build, ".warpstart-chunks", kept[0]!, SDK_CHUNK_FILE));
  for (const name of FUNCTIONS) expect(readFileSync(join(build, name, "src", SDK_CHUNK_FILE)).equals(chunk)).toBe(true);
});
