// How long `sam build` takes for N copies of one small SDK handler: through this project's makefile
// pipeline (Profile Warp: bundle, SDK chunk, a code cache from a build-time INIT) and through SAM's
// own esbuild builder. Each run builds a fresh app in a temporary folder, as a user runs it.
//   node bench/experiments/build-time/run.mts [--functions 1,5,20] [--repeat 1] [--parallel 20] [--out FILE]
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { arch, cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const ROOT = resolve(import.meta.dirname, "../../..");
const { values } = parseArgs({
  options: {
    functions: { type: "string", default: "1,5,20" },
    repeat: { type: "string", default: "1" },
    // The function counts also built with `sam build --parallel`.
    parallel: { type: "string", default: "20" },
    // The function counts also built again with nothing changed, the pipeline's build cache on.
    rebuild: { type: "string", default: "20" },
    out: { type: "string", default: join(tmpdir(), "warpstart-build-time.json") },
  },
});
const counts = values.functions.split(",").map(Number);
const parallelCounts = new Set(values.parallel.split(",").filter(Boolean).map(Number));
const rebuildCounts = new Set(values.rebuild.split(",").filter(Boolean).map(Number));
const repeat = Number(values.repeat);
if (counts.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(repeat) || repeat < 1) {
  throw new Error("--functions takes positive integers (1,5,20), --repeat a positive integer");
}

// The project's tools first on PATH (Node 22 and npm, sam, esbuild), as scripts/with-tools.sh puts them.
// WARPSTART_BUILD_CACHE=off: every Warp build a whole one, not one the pipeline kept from an earlier run.
const env: NodeJS.ProcessEnv = {
  ...process.env,
  PATH: [join(ROOT, "tools/node22/node_modules/.bin"), join(ROOT, ".venv/bin"), join(ROOT, "../../node_modules/.bin"), process.env.PATH].join(":"),
  SAM_CLI_TELEMETRY: "0",
};
env.WARPSTART_BUILD_CACHE = "off";
delete env.WARPSTART_TEMPLATE;

const version = (command: string, args: string[]) => execFileSync(command, args, { env, encoding: "utf8" }).trim();
const sdkVersion = (JSON.parse(readFileSync(join(ROOT, "../../node_modules/@aws-sdk/client-sts/package.json"), "utf8")) as { version: string }).version;

// One handler for every function: its client made at INIT, INIT's call awaited at top level
// (the pattern of src/functions/identity/sts.mts).
const HANDLER = `import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";

const sts = new STSClient({});
const identity = await sts.send(new GetCallerIdentityCommand({}));

export const handler = async () => ({ account: identity.Account, arn: identity.Arn });
`;

type Builder = "warp" | "esbuild";
const LABEL: Record<Builder, string> = { warp: "Warp (makefile)", esbuild: "SAM esbuild" };

const GLOBALS = `AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Globals:
  Function:
    Runtime: nodejs22.x
    Architectures: [arm64]
    MemorySize: 512
    Timeout: 10
`;

/**
 * The template of each builder. Warp as the project's template has it: one CodeUri (the app, where
 * the Makefile is), a Handler path per function. SAM's esbuild builder: a CodeUri per function (its
 * build definitions are per CodeUri and Handler), the entry point in it.
 */
const resource: Record<Builder, (name: string) => string> = {
  warp: (name) => `  ${name}:
    Type: AWS::Serverless::Function
    Metadata: { BuildMethod: makefile, BuildProperties: { Profile: Warp } }
    Properties: { CodeUri: ., Handler: functions/${name}/index.handler }
`,
  esbuild: (name) => `  ${name}:
    Type: AWS::Serverless::Function
    Metadata:
      BuildMethod: esbuild
      BuildProperties: { Format: esm, OutExtension: [.js=.mjs], Target: es2022, MainFields: "module,main", EntryPoints: [index.mts] }
    Properties: { CodeUri: functions/${name}/, Handler: index.handler }
`,
};

/** A fresh SAM app of n copies of the handler, built by `builder`, in a temporary folder. */
function makeApp(builder: Builder, n: number): string {
  const app = mkdtempSync(join(tmpdir(), `build-time-${builder}-${n}-`));
  const names = Array.from({ length: n }, (_, i) => `Fn${i + 1}`);
  for (const name of names) {
    mkdirSync(join(app, "functions", name), { recursive: true });
    writeFileSync(join(app, "functions", name, "index.mts"), HANDLER);
  }
  writeFileSync(join(app, "template.yaml"), `${GLOBALS}Resources:\n${names.map(resource[builder]).join("")}`);
  const pkg = { name: `build-time-${builder}`, private: true, type: "module", dependencies: { "@aws-sdk/client-sts": sdkVersion } };
  writeFileSync(join(app, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  if (builder === "warp") {
    // Warp bundles @aws-sdk/* from the project's patched SDK tree (builder/sdk.mts sdkServing): no node_modules here.
    writeFileSync(join(app, "Makefile"), `include ${join(ROOT, "warpstart.mk")}\n`);
  } else {
    // No package.json in a CodeUri: SAM runs esbuild where the source is, without npm install, and
    // esbuild finds the SDK up the tree, in the project's node_modules (nothing downloaded).
    symlinkSync(join(ROOT, "../../node_modules"), join(app, "node_modules"));
  }
  return app;
}

/** `sam build` in `app`: its exit code, its output in the app's sam-build.log. */
function runSam(app: string, parallel: boolean, runEnv: NodeJS.ProcessEnv): Promise<number | null> {
  return new Promise((done, fail) => {
    const child = spawn("sam", ["build", ...(parallel ? ["--parallel"] : [])], { cwd: app, env: runEnv, stdio: ["ignore", "pipe", "pipe"] });
    const output: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => output.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => output.push(chunk));
    child.on("error", fail);
    child.on("close", (exit) => {
      writeFileSync(join(app, "sam-build.log"), Buffer.concat(output));
      done(exit);
    });
  });
}

/**
 * `sam build` of a fresh app: its wall time in seconds. With `rebuild`, the time of a second
 * `sam build` with nothing changed, the pipeline's build cache on (the first build, untimed, fills
 * it). The app is removed after, kept when a build fails.
 */
async function samBuild(builder: Builder, n: number, parallel: boolean, rebuild = false): Promise<number> {
  const app = makeApp(builder, n);
  const log = join(app, "sam-build.log");
  const cache = rebuild ? mkdtempSync(join(tmpdir(), "build-time-cache-")) : undefined;
  const runEnv = cache ? { ...env, WARPSTART_BUILD_CACHE: cache } : env;
  let code = rebuild ? await runSam(app, parallel, runEnv) : 0;
  const started = performance.now();
  if (code === 0) code = await runSam(app, parallel, runEnv);
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) {
    const tail = readFileSync(log, "utf8").trim().split("\n").slice(-20).join("\n");
    throw new Error(`sam build of ${n} ${LABEL[builder]} function(s) failed (exit ${code}); the app is kept: ${app}\n${tail}`);
  }
  // What each build must have written, so that a time is never one of a build that made less.
  const built = (i: number) => join(app, ".aws-sam/build", `Fn${i}`, ...(builder === "warp" ? [`functions/Fn${i}`, "sdk.arm64.cache"] : ["index.mjs"]));
  const missing = Array.from({ length: n }, (_, i) => built(i + 1)).find((file) => !existsSync(file));
  if (missing) throw new Error(`sam build of ${n} ${LABEL[builder]} function(s) wrote no ${missing}; the app is kept: ${app}`);
  rmSync(app, { recursive: true, force: true });
  if (cache) rmSync(cache, { recursive: true, force: true });
  return seconds;
}

const versions = {
  sam: version("sam", ["--version"]),
  node: version("node", ["--version"]),
  esbuild: version("esbuild", ["--version"]),
  clientSts: sdkVersion,
};
console.error(`build-time: ${versions.sam}, node ${versions.node}, esbuild ${versions.esbuild}, ${cpus().length} cores ${arch()}`);

// Warm-up, not measured: the first build of each builder pays for cold disk caches and Python imports.
for (const builder of ["warp", "esbuild"] as const) {
  console.error(`warm-up: 1 ${LABEL[builder]} function`);
  await samBuild(builder, 1, false);
}

interface Run {
  functions: number;
  builder: Builder;
  parallel: boolean;
  rebuild: boolean;
  repetition: number;
  seconds: number;
}
const runs: Run[] = [];
for (const n of counts) {
  const modes = [
    { parallel: false, rebuild: false },
    ...(parallelCounts.has(n) ? [{ parallel: true, rebuild: false }] : []),
    ...(rebuildCounts.has(n) ? [{ parallel: false, rebuild: true }] : []),
  ];
  for (let repetition = 1; repetition <= repeat; repetition++) {
    // The builders alternate, so that a drift of the machine falls on both.
    for (const { parallel, rebuild } of modes) {
      for (const builder of ["warp", "esbuild"] as const) {
        const seconds = await samBuild(builder, n, parallel, rebuild);
        console.error(`N=${n} ${label(builder, parallel, rebuild)} #${repetition}: ${seconds.toFixed(1)} s`);
        runs.push({ functions: n, builder, parallel, rebuild, repetition, seconds });
      }
    }
  }
}

function label(builder: Builder, parallel: boolean, rebuild: boolean): string {
  return `${LABEL[builder]}${parallel ? " --parallel" : ""}${rebuild ? ", again, nothing changed" : ""}`;
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const keyOf = (run: Run) => `${run.functions}|${run.builder}|${run.parallel}|${run.rebuild}`;
const rows = [...new Set(runs.map(keyOf))].map((key) => {
  const same = runs.filter((run) => keyOf(run) === key);
  const { functions, builder, parallel, rebuild } = same[0]!;
  const seconds = median(same.map((run) => run.seconds));
  return { functions, builder, parallel, rebuild, seconds, secondsPerFunction: seconds / functions, runs: same.map((run) => run.seconds) };
});

const table = [
  `| N | builder | seconds${repeat > 1 ? ` (median of ${repeat})` : ""} | seconds per function |`,
  "| --: | :-- | --: | --: |",
  ...rows.map(
    (row) => `| ${row.functions} | ${label(row.builder, row.parallel, row.rebuild)} | ${row.seconds.toFixed(1)} | ${row.secondsPerFunction.toFixed(2)} |`,
  ),
];
console.log(table.join("\n"));
const result = { date: new Date().toISOString(), versions, machine: { cores: cpus().length, arch: arch() }, repeat, rows, runs };
writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
console.error(`wrote ${values.out}`);
