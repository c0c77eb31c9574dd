// How long `sam build` takes for N small SDK handlers: through this project's makefile pipeline
// (Profile Warp: bundle, SDK chunk, a code cache from a build-time INIT) and through SAM's own
// esbuild builder. Each run builds a fresh app in a temporary folder, as a user runs it.
//   node bench/experiments/build-time/run.mts [--app sts|dynamodb] [--functions 1,5,20] [--repeat 1]
//     [--parallel 20] [--rebuild 20] [--changed 10] [--out FILE]
// --app sts: N copies of one STS handler, a CodeUri each. --app dynamodb: issue 49's app, N
// TypeScript handlers in one CodeUri, each with the DynamoDB document client and INIT work, built
// in source; its Warp app is the esbuild app after `warpstart adopt --profile Warp`.
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { arch, cpus, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { labHomeDir } from "../../../core/paths.mts";
import { answers } from "../../../core/servers.mts";

const ROOT = resolve(import.meta.dirname, "../../..");
const { values } = parseArgs({
  options: {
    functions: { type: "string", default: "1,5,20" },
    repeat: { type: "string", default: "1" },
    // The function counts also built with `sam build --parallel`.
    parallel: { type: "string", default: "20" },
    // The function counts also built again with nothing changed, the pipeline's build cache on.
    rebuild: { type: "string", default: "20" },
    // The function counts also built again after one handler changed, the pipeline's build cache on.
    changed: { type: "string", default: "" },
    app: { type: "string", default: "sts" },
    // Other copies of the package, LABEL=DIR (DIR its packages/warpstart folder, its tools installed), comma-separated:
    // their Warp builds too, interleaved, as the before of a change.
    baseline: { type: "string", default: "" },
    // The dynamodb app's Warp builds from this package as npm packs it, installed in the app's
    // node_modules (JavaScript, on the Node on PATH), as an app that installed it from npm has it.
    packed: { type: "boolean", default: false },
    // The dynamodb app's package.json and node_modules in its CodeUri, as \`sam init\`'s apps have
    // them: SAM's esbuild builder then runs npm install there before each function's esbuild.
    "in-codeuri": { type: "boolean", default: false },
    // Each timed build after the build-time INIT servers earlier builds left have stopped, as a
    // sam build after a pause finds them (each app is a new one, so its local AWS starts anyway).
    cold: { type: "boolean", default: false },
    out: { type: "string", default: join(tmpdir(), "warpstart-build-time.json") },
  },
});
const counts = values.functions.split(",").map(Number);
const parallelCounts = new Set(values.parallel.split(",").filter(Boolean).map(Number));
const rebuildCounts = new Set(values.rebuild.split(",").filter(Boolean).map(Number));
const changedCounts = new Set(values.changed.split(",").filter(Boolean).map(Number));
const repeat = Number(values.repeat);
const appKind = values.app;
if (appKind !== "sts" && appKind !== "dynamodb") throw new Error("--app takes sts or dynamodb");
if (counts.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(repeat) || repeat < 1) {
  throw new Error("--functions takes positive integers (1,5,20), --repeat a positive integer");
}

// The project's tools first on PATH (Node 22 and npm, sam, esbuild), as scripts/with-tools.sh puts them.
// WARPSTART_BUILD_CACHE=off: every Warp build a whole one, not one the pipeline kept from an earlier run.
const env: NodeJS.ProcessEnv = {
  ...process.env,
  PATH: [join(ROOT, "tools/node22/node_modules/.bin"), join(ROOT, ".venv/bin"), join(ROOT, "../../node_modules/.bin"), process.env.PATH].join(":"),
  SAM_CLI_TELEMETRY: "0",
  // SAM's npm install (--in-codeuri) from npm's cache: nothing downloaded.
  npm_config_offline: "true",
};
env.WARPSTART_BUILD_CACHE = "off";
delete env.WARPSTART_TEMPLATE;

/**
 * With --packed: a package (this one, or a baseline) as `npm pack` makes it, installed by npm
 * (offline, from its cache: setup's npm-cache part) in a folder of its own, whose
 * node_modules/warpstart the Warp app links. Its tools are this checkout's (WARPSTART_HOME).
 */
function packedInstallOf(packageDir: string): string {
  const into = mkdtempSync(join(tmpdir(), "build-time-packed-"));
  execFileSync("npm", ["pack", "--pack-destination", into, "--loglevel=error"], { cwd: packageDir, env, stdio: "ignore" });
  const tarball = readdirSync(into).find((name) => name.endsWith(".tgz"))!;
  writeFileSync(join(into, "package.json"), '{ "name": "build-time-packed", "private": true }\n');
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--loglevel=error", join(into, tarball)], { cwd: into, env, stdio: "ignore" });
  return join(into, "node_modules/warpstart");
}
if (values.packed) env.WARPSTART_HOME = ROOT;

const version = (command: string, args: string[]) => execFileSync(command, args, { env, encoding: "utf8" }).trim();
const installed = (pkg: string) => (JSON.parse(readFileSync(join(ROOT, "../../node_modules", pkg, "package.json"), "utf8")) as { version: string }).version;
const sdkVersion = installed("@aws-sdk/client-sts");

// One handler for every function: its client made at INIT, INIT's call awaited at top level
// (the pattern of src/functions/identity/sts.mts).
const HANDLER = `import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";

const sts = new STSClient({});
const identity = await sts.send(new GetCallerIdentityCommand({}));

export const handler = async () => ({ account: identity.Account, arn: identity.Arn });
`;

/** "warp" (this package's Warp), "esbuild" (SAM's builder), or a baseline's label (another copy's Warp). */
type Builder = string;
const baselines = new Map(
  values.baseline
    .split(",")
    .filter(Boolean)
    .map((pair) => {
      const [name, dir] = pair.split("=");
      if (!name || !dir) throw new Error(`--baseline takes LABEL=DIR pairs, not ${pair}`);
      return [name, resolve(dir)] as const;
    }),
);
const LABEL = (builder: Builder) => ({ warp: "Warp (makefile)", esbuild: "SAM esbuild" })[builder] ?? `Warp (makefile), ${builder}`;
const BUILDERS: Builder[] = [...baselines.keys(), "warp", "esbuild"];
/** The package whose rule builds a Warp app: this one, or a baseline. */
const packageOf = (builder: Builder) => baselines.get(builder) ?? ROOT;
/** With --packed, each Warp builder's package as an app installs it from npm. */
const packedOf = new Map(
  values.packed ? BUILDERS.filter((builder) => builder !== "esbuild").map((builder) => [builder, packedInstallOf(packageOf(builder))]) : [],
);

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
const warpResource = (name: string) => `  ${name}:
    Type: AWS::Serverless::Function
    Metadata: { BuildMethod: makefile, BuildProperties: { Profile: Warp } }
    Properties: { CodeUri: ., Handler: functions/${name}/index.handler }
`;
const esbuildResource = (name: string) => `  ${name}:
    Type: AWS::Serverless::Function
    Metadata:
      BuildMethod: esbuild
      BuildProperties: { Format: esm, OutExtension: [.js=.mjs], Target: es2022, MainFields: "module,main", EntryPoints: [index.mts] }
    Properties: { CodeUri: functions/${name}/, Handler: index.handler }
`;
const resource = (builder: Builder) => (builder === "esbuild" ? esbuildResource : warpResource);

/** A fresh SAM app of n functions, built by `builder`, in a temporary folder. */
const makeApp = (builder: Builder, n: number): string => (appKind === "sts" ? makeStsApp(builder, n) : makeDynamoDbApp(builder, n));

/** n copies of the STS handler, a CodeUri each. */
function makeStsApp(builder: Builder, n: number): string {
  const app = mkdtempSync(join(tmpdir(), `build-time-${builder}-${n}-`));
  const names = Array.from({ length: n }, (_, i) => `Fn${i + 1}`);
  for (const name of names) {
    mkdirSync(join(app, "functions", name), { recursive: true });
    writeFileSync(join(app, "functions", name, "index.mts"), HANDLER);
  }
  writeFileSync(join(app, "template.yaml"), `${GLOBALS}Resources:\n${names.map(resource(builder)).join("")}`);
  const pkg = { name: `build-time-${builder}`, private: true, type: "module", dependencies: { "@aws-sdk/client-sts": sdkVersion } };
  writeFileSync(join(app, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  if (builder !== "esbuild") {
    // Warp bundles @aws-sdk/* from the project's patched SDK tree (builder/sdk.mts sdkServing): no node_modules here.
    writeFileSync(join(app, "Makefile"), `include ${join(packageOf(builder), "warpstart.mk")}\n`);
  } else {
    // No package.json in a CodeUri: SAM runs esbuild where the source is, without npm install, and
    // esbuild finds the SDK up the tree, in the project's node_modules (nothing downloaded).
    symlinkSync(join(ROOT, "../../node_modules"), join(app, "node_modules"));
  }
  return app;
}

/**
 * Issue 49's app: n TypeScript handlers in one CodeUri (handlers/), each with the DynamoDB document
 * client made at INIT and a settings item read at INIT (a top-level await), the table in the
 * template; the handlers differ in the command they send per invoke (so in what they import).
 * SAM's esbuild builder as `sam init`'s hello-ts template sets it (Minify, Sourcemap, EntryPoints),
 * as an ES module for es2022 (top-level await); the Warp app is that one after
 * `warpstart adopt --profile Warp`.
 */
const COMMANDS = ["PutCommand", "QueryCommand", "UpdateCommand"] as const;
const SEND: Record<(typeof COMMANDS)[number], string> = {
  PutCommand: "new PutCommand({ TableName: TABLE, Item: { id, seenAt: Date.now() } })",
  QueryCommand: 'new QueryCommand({ TableName: TABLE, KeyConditionExpression: "id = :id", ExpressionAttributeValues: { ":id": id } })',
  UpdateCommand:
    'new UpdateCommand({ TableName: TABLE, Key: { id }, UpdateExpression: "ADD hits :one", ExpressionAttributeValues: { ":one": 1 }, ReturnValues: "ALL_NEW" })',
};
const dynamoDbHandler = (i: number, edit = "") => {
  const command = COMMANDS[(i - 1) % COMMANDS.length]!;
  return `import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, GetCommand, ${command} } from "@aws-sdk/lib-dynamodb";

const TABLE = process.env.TABLE_NAME ?? "";
const documents = DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } });
// INIT's work: the app's settings, read once per execution environment.
const { Item: settings } = await documents.send(new GetCommand({ TableName: TABLE, Key: { id: "settings" } }));

export const handler = async (event: { id?: string }) => {
  const id = event?.id ?? "fn${i}${edit}";
  const answer = await documents.send(${SEND[command]});
  return { id, settings: settings ?? null, status: answer.$metadata.httpStatusCode };
};
`;
};

function makeDynamoDbApp(builder: Builder, n: number): string {
  const app = mkdtempSync(join(tmpdir(), `build-time-${builder}-${n}-`));
  mkdirSync(join(app, "handlers"));
  const names = Array.from({ length: n }, (_, i) => i + 1);
  for (const i of names) writeFileSync(join(app, "handlers", `fn${i}.ts`), dynamoDbHandler(i));
  const fn = (i: number) => `  Fn${i}:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: handlers/
      Handler: fn${i}.handler
    Metadata:
      BuildMethod: esbuild
      BuildProperties:
        Format: esm
        OutExtension: [.js=.mjs]
        Minify: true
        Target: es2022
        Sourcemap: true
        EntryPoints: [fn${i}.ts]
`;
  writeFileSync(
    join(app, "template.yaml"),
    `${GLOBALS}    Environment:
      Variables:
        TABLE_NAME: !Ref Table
Resources:
  Table:
    Type: AWS::Serverless::SimpleTable
    Properties:
      PrimaryKey: { Name: id, Type: String }
${names.map(fn).join("")}`,
  );
  const dependencies = Object.fromEntries(["@aws-sdk/client-dynamodb", "@aws-sdk/lib-dynamodb"].map((pkg) => [pkg, installed(pkg)]));
  if (values["in-codeuri"]) {
    // The SDK installed in the CodeUri by npm (offline, from the lockfile this repository's makes:
    // nothing downloaded).
    const codeUri = join(app, "handlers");
    writeFileSync(
      join(codeUri, "package.json"),
      `${JSON.stringify({ name: "build-time-dynamodb", version: "1.0.0", private: true, type: "module", dependencies }, null, 2)}\n`,
    );
    execFileSync("node", [join(ROOT, "scripts/pin-dependencies.mjs"), codeUri], { env });
    execFileSync("npm", ["ci", "--offline", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: codeUri, env, stdio: "ignore" });
    if (builder !== "esbuild") {
      // warpstart in the app's folder, where npm install --save-dev puts it beside template.yaml.
      writeFileSync(join(app, "package.json"), `${JSON.stringify({ name: "build-time-app", private: true, devDependencies: { warpstart: "*" } }, null, 2)}\n`);
      mkdirSync(join(app, "node_modules"));
      symlinkSync(packedOf.get(builder) ?? ROOT, join(app, "node_modules/warpstart"));
    }
    return adopted(app, builder);
  }
  const pkg = { name: "build-time-dynamodb", version: "1.0.0", private: true, type: "module", dependencies, devDependencies: { warpstart: "*" } };
  writeFileSync(join(app, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  // The project's node_modules (the SDK, and warpstart, the worktree's package): nothing downloaded.
  const packed = packedOf.get(builder);
  if (packed) {
    // Each of the project's packages but warpstart, which is the packed one.
    mkdirSync(join(app, "node_modules"));
    for (const name of readdirSync(join(ROOT, "../../node_modules")))
      if (name !== "warpstart" && name !== ".bin") symlinkSync(join(ROOT, "../../node_modules", name), join(app, "node_modules", name));
    symlinkSync(packed, join(app, "node_modules/warpstart"));
  } else symlinkSync(join(ROOT, "../../node_modules"), join(app, "node_modules"));
  return adopted(app, builder);
}

/** The app as \`warpstart adopt --profile Warp\` leaves it, for a Warp builder; as it is for SAM's. */
function adopted(app: string, builder: Builder): string {
  if (builder !== "esbuild") {
    execFileSync("node", [join(ROOT, "warpstart.mjs"), "adopt", "--profile", "Warp", "--template", join(app, "template.yaml")], {
      cwd: app,
      env,
      stdio: "ignore",
    });
    // A baseline's rule instead of the one node_modules/warpstart has (which is the baseline's own, packed).
    const makefile = join(app, "handlers/Makefile");
    if (baselines.has(builder) && !packedOf.has(builder))
      writeFileSync(makefile, readFileSync(makefile, "utf8").replace(/^WARPSTART_MK := .*$/m, `WARPSTART_MK := ${join(packageOf(builder), "warpstart.mk")}`));
  }
  return app;
}

/** Changes one handler (Fn1's), as a user's edit does: what its invoke returns. */
function changeOneHandler(app: string): void {
  if (appKind === "sts") appendFileSync(join(app, "functions/Fn1/index.mts"), 'export const edited = "yes";\n');
  else writeFileSync(join(app, "handlers/fn1.ts"), dynamoDbHandler(1, "-edited"));
}

/** The file each function's build must have written, so that a time is never one of a build that made less. */
function builtFile(app: string, builder: Builder, i: number): string {
  const dir = join(app, ".aws-sam/build", `Fn${i}`);
  if (appKind === "sts") return join(dir, ...(builder !== "esbuild" ? [`functions/Fn${i}`, "sdk.arm64.cache"] : ["index.mjs"]));
  return join(dir, builder !== "esbuild" ? "sdk.arm64.cache" : `fn${i}.mjs`);
}

/** `sam build` in `app`: its exit code, its output in the app's sam-build.log. */
function runSam(app: string, parallel: boolean, runEnv: NodeJS.ProcessEnv): Promise<number | null> {
  return new Promise((done, fail) => {
    const child = spawn("sam", ["build", ...(parallel ? ["--parallel"] : []), ...(appKind === "dynamodb" ? ["--build-in-source"] : [])], {
      cwd: app,
      env: runEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
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
 * Waits until no build-time INIT server of any copy of the package answers (builder/init-server.mts:
 * each stops 20 s after its last INIT; a connection that asks nothing keeps none up).
 */
async function initServersStopped(): Promise<void> {
  const homes = dirname(labHomeDir());
  const sockets = () =>
    readdirSync(homes).flatMap((project) => {
      const dir = join(homes, project, "init-servers");
      return existsSync(dir)
        ? readdirSync(dir)
            .filter((name) => name.endsWith(".sock"))
            .map((name) => join(dir, name))
        : [];
    });
  while ((await Promise.all(sockets().map(answers))).includes(true)) await sleep(500);
}

/** How a build is timed: a fresh app's first; again with nothing changed; again after one handler changed (both with the build cache on). */
type Rebuild = "none" | "same" | "changed";

/**
 * `sam build` of a fresh app: its wall time in seconds. With `rebuild`, the time of a second
 * `sam build`, the pipeline's build cache on (the first build, untimed, fills it), with nothing
 * changed or after one handler changed. The app is removed after, kept when a build fails.
 */
async function samBuild(builder: Builder, n: number, parallel: boolean, rebuild: Rebuild = "none"): Promise<number> {
  const app = makeApp(builder, n);
  const log = join(app, "sam-build.log");
  const cache = rebuild !== "none" ? mkdtempSync(join(tmpdir(), "build-time-cache-")) : undefined;
  const runEnv = cache ? { ...env, WARPSTART_BUILD_CACHE: cache } : env;
  let code = rebuild !== "none" ? await runSam(app, parallel, runEnv) : 0;
  if (rebuild === "changed") changeOneHandler(app);
  if (values.cold) await initServersStopped();
  const started = performance.now();
  if (code === 0) code = await runSam(app, parallel, runEnv);
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) {
    const tail = readFileSync(log, "utf8").trim().split("\n").slice(-20).join("\n");
    throw new Error(`sam build of ${n} ${LABEL(builder)} function(s) failed (exit ${code}); the app is kept: ${app}\n${tail}`);
  }
  const missing = Array.from({ length: n }, (_, i) => builtFile(app, builder, i + 1)).find((file) => !existsSync(file));
  if (missing) throw new Error(`sam build of ${n} ${LABEL(builder)} function(s) wrote no ${missing}; the app is kept: ${app}`);
  rmSync(app, { recursive: true, force: true });
  if (cache) rmSync(cache, { recursive: true, force: true });
  return seconds;
}

const versions = {
  sam: version("sam", ["--version"]),
  node: version("node", ["--version"]),
  esbuild: version("esbuild", ["--version"]),
  clientSts: sdkVersion,
  libDynamodb: installed("@aws-sdk/lib-dynamodb"),
};
console.error(`build-time: --app ${appKind}, ${versions.sam}, node ${versions.node}, esbuild ${versions.esbuild}, ${cpus().length} cores ${arch()}`);

// Warm-up, not measured: the first build of each builder pays for cold disk caches and Python imports.
for (const builder of BUILDERS) {
  console.error(`warm-up: 1 ${LABEL(builder)} function`);
  await samBuild(builder, 1, false);
}

interface Run {
  functions: number;
  builder: Builder;
  parallel: boolean;
  rebuild: Rebuild;
  repetition: number;
  seconds: number;
}
const runs: Run[] = [];
for (const n of counts) {
  const modes = [
    { parallel: false, rebuild: "none" as Rebuild },
    ...(parallelCounts.has(n) ? [{ parallel: true, rebuild: "none" as Rebuild }] : []),
    ...(rebuildCounts.has(n) ? [{ parallel: false, rebuild: "same" as Rebuild }] : []),
    ...(changedCounts.has(n) ? [{ parallel: false, rebuild: "changed" as Rebuild }] : []),
  ];
  for (let repetition = 1; repetition <= repeat; repetition++) {
    // The builders alternate, so that a drift of the machine falls on both.
    for (const { parallel, rebuild } of modes) {
      for (const builder of BUILDERS) {
        const seconds = await samBuild(builder, n, parallel, rebuild);
        console.error(`N=${n} ${label(builder, parallel, rebuild)} #${repetition}: ${seconds.toFixed(1)} s`);
        runs.push({ functions: n, builder, parallel, rebuild, repetition, seconds });
      }
    }
  }
}

function label(builder: Builder, parallel: boolean, rebuild: Rebuild): string {
  const again = { none: "", same: ", again, nothing changed", changed: ", again, one handler changed" }[rebuild];
  return `${LABEL(builder)}${parallel ? " --parallel" : ""}${again}`;
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

// Against SAM's esbuild builder's whole build of the same functions (issue 49's measure).
const samOf = (n: number) => rows.find((row) => row.functions === n && row.builder === "esbuild" && !row.parallel && row.rebuild === "none")?.seconds;
const table = [
  `| N | builder | seconds${repeat > 1 ? ` (median of ${repeat})` : ""} | seconds per function | × SAM esbuild's build |`,
  "| --: | :-- | --: | --: | --: |",
  ...rows.map((row) => {
    const sam = samOf(row.functions);
    const ratio = sam ? `${(row.seconds / sam).toFixed(2)}×` : "";
    return `| ${row.functions} | ${label(row.builder, row.parallel, row.rebuild)} | ${row.seconds.toFixed(1)} | ${row.secondsPerFunction.toFixed(2)} | ${ratio} |`;
  }),
];
console.log(table.join("\n"));
const result = {
  date: new Date().toISOString(),
  app: appKind,
  baselines: Object.fromEntries(baselines),
  versions,
  machine: { cores: cpus().length, arch: arch() },
  repeat,
  cold: values.cold,
  rows,
  runs,
};
writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
console.error(`wrote ${values.out}`);
