// The runtime's copy of the SDK as Lambda's Node.js runtimes have it: a function that imports a
// client it does not ship gets the release its runtime carries, installed once, on demand, by the
// real npm (from a registry stand-in: nothing leaves the machine), and told.
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildFunction, functionBuild } from "../../builder/build.mts";
import { RUNTIMES } from "../../core/runtimes.mts";
import { readTemplate } from "../../core/template.mts";
import { ownLocalAws } from "../../emulation/local-aws/build-services.mts";
import { runtimeDirOf } from "../../emulation/runtime-sdk.mts";
import { startLab } from "../../lab/lab.mts";
import { type Registry, startRegistry } from "../support/npm-registry.mts";

const FIXTURES = join(import.meta.dirname, "../fixtures/runtime-sdk");
const sdkVersionOf = (runtime: "node22" | "node24") =>
  (JSON.parse(readFileSync(join(runtimeDirOf(RUNTIMES[runtime]), "package.json"), "utf8")) as { config: { sdkVersion: string } }).config.sdkVersion;

/** What the lab says on its console (console.error), kept until the test restores it. */
const CONSOLE_ERROR = console.error;
const listenToTheLab = () => {
  const lines: string[] = [];
  console.error = (line: unknown) => void lines.push(String(line));
  return lines;
};

const BOTH_RUNTIMES = ["TakesFromRuntime", "TakesFromRuntime24"];

let registry: Registry;
let home: string;
const saved = { ...process.env };
beforeAll(async () => {
  // Releases below, at and above each runtime's SDK release; the runtime carries the highest at or below.
  const versions = ["3.800.0", sdkVersionOf("node22"), "3.1000.0", sdkVersionOf("node24"), "3.2000.0"];
  registry = await startRegistry([
    { name: "@aws-sdk/client-lab-probe", dir: join(FIXTURES, "probe-package"), versions },
    { name: "@aws-sdk/client-lab-build-probe", dir: join(FIXTURES, "probe-package"), versions },
  ]);
  home = mkdtempSync(join(tmpdir(), "warpstart-runtime-sdk-"));
  // The lab's folder (and so what it installs) and npm's cache: this test's own.
  Object.assign(process.env, { XDG_CACHE_HOME: join(home, "cache"), npm_config_registry: registry.url, npm_config_cache: join(home, "npm") });
});
afterAll(async () => {
  process.env = saved;
  await registry?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

it("installs the client a function takes from the runtime at the release each runtime carries, once, and says so", async () => {
  const lines = listenToTheLab();
  try {
    const lab = await startLab({ template: join(FIXTURES, "template.yaml"), parameterOverrides: {}, only: BOTH_RUNTIMES });
    try {
      for (const [name, runtime] of [
        ["TakesFromRuntime", "node22"],
        ["TakesFromRuntime24", "node24"],
      ] as const) {
        const { payload, functionError } = await lab.lambda.invoke(name, Buffer.from("{}"));
        expect([name, functionError, JSON.parse(payload.toString())]).toEqual([name, undefined, { version: sdkVersionOf(runtime), sts: "function" }]);
      }
    } finally {
      await lab.stop();
    }
    expect(lines.filter((line) => line.includes("installing"))).toEqual([
      expect.stringMatching(
        new RegExp(
          `^== nodejs22\\.x carries @aws-sdk/client-lab-probe@${sdkVersionOf("node22")} \\(its SDK ${sdkVersionOf("node22")}\\), which the stand-in for its runtime lacks: installing into .+ \\(once\\)$`,
        ),
      ),
      expect.stringMatching(/^== nodejs24\.x carries @aws-sdk\/client-lab-probe@/),
    ]);
    // A second lab finds them installed: nothing asked of the registry.
    const asked = registry.asked.length;
    const again = await startLab({ template: join(FIXTURES, "template.yaml"), parameterOverrides: {}, only: BOTH_RUNTIMES });
    await again.stop();
    expect(registry.asked.length).toBe(asked);
  } finally {
    console.error = CONSOLE_ERROR;
  }
});

it("bundles what an app's function takes from the runtime at the release its runtime carries (the doctor's profile builds of an app's code), and Warp says its code cache leaves that out", async () => {
  // The app outside the project, as a user's is; the client installed by the test before.
  const app = join(home, "app");
  cpSync(FIXTURES, app, { recursive: true });
  const out = join(home, "built");
  const built = await buildFunction(functionBuild(readTemplate(join(app, "template.yaml")), "TakesFromRuntime", "Optimized"), out, {
    initServices: ownLocalAws,
  });
  // client-sts from warpstart's own tree, patched (the app installs no SDK), and the build says so; the probe from the runtime's copy.
  const code = readFileSync(built.outfile, "utf8");
  expect(code).toMatch(/sdk-trees\/\w+\/node_modules\/@aws-sdk\/client-sts\//);
  expect(built.notes).toContainEqual(expect.stringMatching(/^the app installs no @aws-sdk\/\* package: bundles warpstart's own \(@aws-sdk\/client-sts /));
  expect(code).toContain("runtime-sdk/node22/node_modules/@aws-sdk/client-lab-probe/index.js");
  expect(code).toContain(`module.exports = { name: "@aws-sdk/client-lab-probe", version: "${sdkVersionOf("node22")}"`);
  expect(built.notes!.join("\n")).not.toContain("the runtime's SDK copy");
  // Warp bundles the probe the same way, outside its chunk: the build says what its code cache leaves out, and how to cache it.
  const warp = await buildFunction(functionBuild(readTemplate(join(app, "template.yaml")), "TakesFromRuntime", "Warp"), join(home, "built-warp"), {
    initServices: ownLocalAws,
  });
  expect(warp.notes).toContain(
    "bundles @aws-sdk/client-lab-probe from the runtime's SDK copy, which the app does not install: outside the chunk and its code cache; npm install @aws-sdk/client-lab-probe to cache it too",
  );
});

it("a build of an app's function that takes a client from the runtime, which nothing installed yet, installs the runtime's release first, and says so", async () => {
  const app = join(home, "app-build");
  cpSync(FIXTURES, app, { recursive: true });
  const lines = listenToTheLab();
  try {
    const built = await buildFunction(functionBuild(readTemplate(join(app, "template.yaml")), "BuildsFromRuntime", "Optimized"), join(home, "built-probe"), {
      initServices: ownLocalAws,
    });
    expect(readFileSync(built.outfile, "utf8")).toContain(`module.exports = { name: "@aws-sdk/client-lab-build-probe", version: "${sdkVersionOf("node22")}"`);
    expect(lines).toEqual([
      expect.stringMatching(
        /^BuildsFromRuntime: nodejs22\.x carries @aws-sdk\/client-lab-build-probe@[\d.]+ \(its SDK [\d.]+\), which the stand-in for its runtime lacks: installing into .+ \(once\)$/,
      ),
    ]);
  } finally {
    console.error = CONSOLE_ERROR;
  }
});

it("serves the other functions when npm cannot install what one takes from the runtime, and says what to do", async () => {
  process.env.npm_config_registry = "http://127.0.0.1:9/"; // nothing answers there
  const lines = listenToTheLab();
  try {
    const lab = await startLab({ template: join(FIXTURES, "template.yaml"), parameterOverrides: {}, only: ["TakesAbsent", "TakesFromRuntime"] });
    try {
      const absent = await lab.lambda.invoke("TakesAbsent", Buffer.from("{}"));
      expect(absent.functionError).toBe("Unhandled");
      expect(JSON.parse(absent.payload.toString())).toMatchObject({
        errorMessage: expect.stringContaining("Cannot find package '@aws-sdk/client-lab-absent'"),
      });
      // The other one's client, installed by the test before, is served.
      const other = await lab.lambda.invoke("TakesFromRuntime", Buffer.from("{}"));
      expect([other.functionError, JSON.parse(other.payload.toString())]).toEqual([undefined, { version: sdkVersionOf("node22"), sts: "function" }]);
    } finally {
      await lab.stop();
    }
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^== npm could not look up @aws-sdk\/client-lab-absent \(.*ECONNREFUSED.*\): a function that imports it fails its INIT here, not on Lambda; rerun once npm's registry is reachable$/,
      ),
    );
  } finally {
    console.error = CONSOLE_ERROR;
  }
});
