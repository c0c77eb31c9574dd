// The doctor's checks, one record each: what it looks for and how bad a problem it finds is, how
// it finds it in a built function (doctor/artifact.mts) and its template settings, the fix in one
// line with the section of docs/doctor.md that explains it, and how a build would make the fix: a
// rewrite of the function's template resource, which the measuring step builds and measures
// (doctor/measure.mts), or why there is none. Adding a check is adding its record to CHECKS (and
// its section to docs/doctor.md). The lab's traced cold start (doctor/dynamic.mts) finds what a
// build cannot show; the checks only name problems, what each costs is the measuring step's.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import ts from "typescript";
import { keepsAlive } from "../builder/build.mts";
import { cacheFileOf, cacheHeaderOf } from "../builder/code-cache.mts";
import { handlerSource, pipelineSource } from "../builder/handler.mts";
import { UNUSED_CREDENTIAL_PROVIDERS } from "../builder/profiles.mts";
import { SDK_PACKAGE } from "../builder/sdk.mts";
import { managedRuntimeOf, RUNTIMES } from "../core/runtimes.mts";
import type { TemplateFunction, TemplateResourceEntry } from "../core/template.mts";
import { type BuiltFunction, type OwnCode, packageName } from "./artifact.mts";
import { type Finding, type FunctionReport, type MeasuredCost, profilesNotMeasured, type Severity, STATIC_ONLY } from "./findings.mts";
import { deprecationOf, labRuns, runtimeLabel, STAND_IN_RUNTIME } from "./lambda-runtimes.mts";

export interface BuildFix {
  /** What the measurement compares: Init Duration of the cold start, or a warm invoke (keep-alive pays there). */
  metric: MeasuredCost["metric"];
  /** Changes a copy of the function's template resource as the fix would have it. */
  rewrite(resource: TemplateResourceEntry): void;
}

/** A build fix, or why there is none to measure. */
type Fix = BuildFix | { why: string };

interface Check {
  id: string;
  severity: Severity;
  /**
   * What it finds wrong in a built function (on a day: the runtime's lifecycle), or null; a check
   * no build shows says where the lab finds it instead.
   */
  detect: ((built: BuiltFunction, today: string) => string | null) | { inLab: string };
  fix: {
    /** The fix in one line. */
    advice: string;
    /** How a function with the finding would be built with it fixed, or why no build measures it. */
    build(built: BuiltFunction): Fix;
  };
}

/** Every check; the report lists what the static ones find, and the ones passed, in this order. */
export const CHECKS = [
  {
    id: "deprecated-runtime",
    severity: "error",
    detect: ({ fn }, today) => deprecationOf(fn.runtime, today),
    fix: {
      advice: `move the function to a supported runtime: ${RUNTIMES.node22.lambdaRuntime} or ${RUNTIMES.node24.lambdaRuntime} (its Runtime in the template, or npx warpstart adopt --runtime, which names each function it leaves to you and why)`,
      build: ({ fn }) => ({
        why: labRuns(fn.runtime)
          ? "the fix changes the runtime, not the build: npx warpstart bench --runtimes compares runtimes"
          : `the lab does not run ${fn.runtime}: the function is traced and measured on ${STAND_IN_RUNTIME}, the runtime the fix moves it to`,
      }),
    },
  },
  {
    id: "runtime-sdk",
    severity: "error",
    // The credential providers Lambda never reaches are left to run time on purpose.
    detect: ({ graph, fn }) => {
      const fromRuntime = graph.runtimeImports.filter(isSdk);
      if (fromRuntime.length === 0) return null;
      // Where Node finds each: the artifact's own node_modules (SAM's npm builder ships them there), else the runtime's copy or a layer.
      const shipped = fromRuntime.filter((imported) => existsSync(join(fn.codeDir, "node_modules", packageName(imported), "package.json")));
      const copy = "the runtime's own copy (or a layer's)";
      const where =
        shipped.length === fromRuntime.length ? "its own node_modules" : shipped.length > 0 ? `its own node_modules (${listed(shipped)}) and ${copy}` : copy;
      return `imports ${listed(fromRuntime)} unbundled: INIT resolves and loads the SDK file by file from ${where}`;
    },
    fix: {
      advice: "bundle the SDK: esbuild without @aws-sdk/* in External (this project's Optimized or Warp profile)",
      build: (built) => bundleFix(built, (external) => [...external.filter((entry) => !isSdk(entry)), ...UNUSED_CREDENTIAL_PROVIDERS]),
    },
  },
  {
    id: "credential-providers",
    severity: "warn",
    detect: ({ graph, ownCode }) => {
      const bundled = UNUSED_CREDENTIAL_PROVIDERS.filter(
        (pkg) => graph.bundledPackages.includes(pkg) || ownCode.some(({ text }) => text.includes(PROVIDER_MARKERS[pkg]!)),
      );
      if (bundled.length === 0) return null;
      return `bundles ${listed(bundled)}: credential providers Lambda never reaches (a function's credentials are in its environment), compiled at INIT for nothing`;
    },
    fix: {
      advice: "list them in esbuild's External (BuildProperties.External), as this project's Optimized profile does",
      build: (built) => bundleFix(built, (external) => [...external, ...UNUSED_CREDENTIAL_PROVIDERS]),
    },
  },
  {
    id: "commonjs",
    severity: "warn",
    detect: ({ handlerFile, format }) =>
      format === "esm"
        ? null
        : `its handler ${handlerFile} is CommonJS: it cannot await at top level, so the work INIT starts (an SDK call, a secret) ends in the first invoke instead`,
    fix: {
      advice: "build an ES module (Format: esm, OutExtension: [.js=.mjs]) and await INIT's work at top level",
      build: ({ fn, source, pipeline, ownCode }) => {
        if (pipeline) return { metric: "init", rewrite: (resource) => delete buildPropertiesOf(resource).Format };
        if (fn.buildMethod !== "esbuild") return { why: "the function is not bundled: making its handler an ES module is a change to its code" };
        const commonJs = source && commonJsExportOf(source);
        if (commonJs)
          return {
            why: `its source ${commonJs.file} exports the handler through CommonJS (${commonJs.statement}), which an ES module build leaves unexported: write it as an ES export first`,
          };
        return {
          metric: "init",
          rewrite: (resource) => {
            const properties = buildPropertiesOf(resource);
            Object.assign(properties, { Format: "esm", OutExtension: [".js=.mjs"] });
            // An ES module cannot require(): a bundle of CommonJS modules needs the banner.
            if (ownCode.some(({ text }) => COMMONJS_WRAPPER.test(text))) properties.Banner = withCommonJsBanner(properties.Banner);
          },
        };
      },
    },
  },
  {
    id: "environment-variables",
    severity: "info",
    detect: ({ fn }) => {
      const names = Object.keys(fn.environment);
      if (names.length === 0) return null;
      return `${names.length} environment variable${names.length === 1 ? "" : "s"} (${listed(names)}): Lambda decrypts them on every cold start`;
    },
    fix: {
      advice: "embed what is fixed at deploy time in the build (esbuild Define, this project's BuildProperties.Define)",
      build: () => ({ why: "the lab does not play Lambda's decryption of environment variables: measure it on Lambda (npx warpstart bench --stack)" }),
    },
  },
  {
    id: "source-maps",
    severity: "warn",
    detect: ({ fn, besideHandler }) => {
      const reasons: string[] = [];
      if (/--enable-source-maps\b/.test(String(fn.environment.NODE_OPTIONS ?? "")))
        reasons.push("NODE_OPTIONS has --enable-source-maps: Node reads each module's source map as it loads it");
      const sourcemap = fn.buildProperties.Sourcemap;
      if (sourcemap !== undefined && sourcemap !== false && sourcemap !== "false")
        reasons.push(`the build writes source maps (BuildProperties.Sourcemap: ${sourcemap})`);
      const maps = besideHandler.filter((file) => file.endsWith(".map"));
      if (maps.length > 0) reasons.push(`the artifact ships ${listed(maps)}`);
      return reasons.length === 0 ? null : reasons.join("; ");
    },
    fix: {
      advice: "drop --enable-source-maps from NODE_OPTIONS and Sourcemap from the build",
      build: ({ fn }) => ({
        metric: "init",
        rewrite: (resource) => {
          // Only a build that writes source maps gets BuildProperties changed (--fix writes what the rewrite makes).
          const properties = resource.Metadata?.BuildProperties as Record<string, unknown> | undefined;
          if (properties && "Sourcemap" in properties) properties.Sourcemap = false;
          const nodeOptions = String(fn.environment.NODE_OPTIONS ?? "");
          if (!nodeOptions.includes("--enable-source-maps")) return;
          // A function's own variable overrides the Globals' one of the same name; an empty NODE_OPTIONS is none.
          resource.Properties ??= {};
          const variables = (resource.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables;
          const withoutMaps = nodeOptions.replace(/\s*--enable-source-maps\b/g, "").trim();
          resource.Properties.Environment = { ...(resource.Properties.Environment as object), Variables: { ...variables, NODE_OPTIONS: withoutMaps } };
        },
      }),
    },
  },
  {
    id: "esbuild-target",
    severity: "warn",
    // SAM's esbuild builder's setting only: this project's pipeline targets node22.
    detect: ({ fn }) => {
      if (fn.buildMethod !== "esbuild") return null;
      const target = String(fn.buildProperties.Target ?? SAM_ESBUILD_DEFAULT_TARGET);
      const tooOld = target
        .split(",")
        .map((entry) => entry.trim())
        .filter(tooOldForTopLevelAwait);
      if (tooOld.length === 0) return null;
      const given = fn.buildProperties.Target === undefined ? ` (SAM's default: BuildProperties has no Target)` : "";
      return `esbuild targets ${target}${given}, too old for top-level await: an ES module cannot await INIT's work`;
    },
    fix: {
      advice: "set BuildProperties.Target to the runtime's Node (node22 for nodejs22.x) or es2022",
      build: ({ fn }) => ({
        metric: "init",
        rewrite: (resource) => {
          // Node 14's first releases lack top-level await: a function on an older runtime gets the one the lab runs it on.
          const major = (runtime: string | undefined) => Number(/^nodejs(\d+)/.exec(runtime ?? "")?.[1] ?? 0);
          buildPropertiesOf(resource).Target = `node${major(fn.runtime) >= 16 ? major(fn.runtime) : major(STAND_IN_RUNTIME)}`;
        },
      }),
    },
  },
  {
    id: "keep-alive-off",
    severity: "warn",
    detect: (built) => {
      const { inCode, byDefine } = keepAliveOffAt(built);
      const places = inCode.map((place) => `keepAlive: false at ${place}`);
      if (byDefine) places.push("the build defines KEEP_ALIVE: false (BuildProperties.Define)");
      if (places.length === 0) return null;
      return `${listed(places)}: every AWS call opens a new TLS connection`;
    },
    fix: {
      advice: "leave the SDK's https agent at its default (keepAlive: true)",
      build: (built) => {
        if (!built.pipeline || keepAliveOffAt(built).inCode.length > 0) return { why: "keepAlive: false is in the function's code: the fix is a change to it" };
        return {
          metric: "warm",
          rewrite: (resource) => {
            const properties = buildPropertiesOf(resource);
            properties.Define = { ...(properties.Define as Record<string, unknown>), KEEP_ALIVE: true };
          },
        };
      },
    },
  },
  {
    id: "init-error",
    severity: "error",
    detect: { inLab: "the lab's traced cold start, when INIT fails (doctor/dynamic.mts)" },
    fix: {
      advice: "fix what INIT throws (the message is the runtime's error); `npx warpstart invoke` shows the function's whole log",
      build: () => ({ why: "there is nothing to measure until INIT completes" }),
    },
  },
  {
    id: "invoke-error",
    severity: "warn",
    detect: { inLab: "the lab's traced cold start, when INIT completes and the handler fails on its trigger's event (doctor/dynamic.mts)" },
    fix: {
      advice:
        "if the event is not one the handler takes, put one it does in events/<LogicalId>.json beside the template (the doctor, npx warpstart invoke and the bench send it); else fix what the handler throws",
      build: () => ({ why: "a handler that fails is not one whose cold start a fix would change: nothing to measure" }),
    },
  },
  {
    id: "code-cache-mismatch",
    severity: "error",
    /**
     * A Warp build's V8 code cache (sdk.<arch>.cache beside the handler, builder/code-cache.mts):
     * V8 takes it only on the CPU architecture and Node version it was made on (its header names
     * that Node). The build records no memory size (its node flags count too): the lab's traced
     * cold start finds a cache V8 rejects for that (doctor/dynamic.mts).
     */
    detect: ({ fn, handlerFile, besideHandler }) => {
      const caches = besideHandler.filter((file) => /^sdk\.[\w-]+\.cache$/.test(file));
      if (caches.length === 0) return null;
      const problems: string[] = [];
      const expected = cacheFileOf(fn.architecture);
      if (!caches.includes(expected))
        problems.push(`it ships ${listed(caches)} and runs on ${fn.architecture}, whose V8 reads ${expected}: none, so INIT compiles the SDK`);
      const made = cacheHeaderOf(join(fn.codeDir, dirname(handlerFile), caches.includes(expected) ? expected : caches[0]!))?.node;
      const runsOn = managedRuntimeOf(fn.runtime);
      if (made && runsOn && Number(/^v(\d+)/.exec(made)?.[1]) !== runsOn.nodeMajor)
        problems.push(`its code cache was made by Node ${made} and it runs on ${runtimeLabel(fn)}, whose V8 rejects it`);
      return problems.length === 0 ? null : problems.join("; ");
    },
    fix: {
      advice:
        "rebuild (sam build) after changing Runtime, Architectures or MemorySize: a Warp code cache is made by the Node of the function's runtime, for its architecture",
      build: () => ({
        why: "the fix is a build for the function's runtime and architecture, which the doctor's Warp build is: what the cache is worth is Warp-no-codeCache in npx warpstart bench --ablate",
      }),
    },
  },
  // as const keeps each id's literal: CheckId is the list's ids.
] as const satisfies readonly Check[];

export type CheckId = (typeof CHECKS)[number]["id"];

const checkOf = (id: CheckId): Check => CHECKS.find((check) => check.id === id)!;

/** Where the checks' sections are: each finding's fix links to its check's. */
const DOC = "docs/doctor.md";

/** What check `id` found: its severity, and its fix linking to its section. */
export function finding(id: CheckId, message: string): Finding {
  const { severity, fix } = checkOf(id);
  // Its section of docs/doctor.md is an `<a id>` named after the check.
  return { id, severity, message, fix: `${fix.advice} (${DOC}#${id})`, measured: null, whyNotMeasured: STATIC_ONLY };
}

/** How `built` (which has the finding `id`) would be built with it fixed. */
export const fixFor = (id: CheckId, built: BuiltFunction): Fix => checkOf(id).fix.build(built);

/** The checks that read the build (and the date, for the runtime's lifecycle), in the report's order. */
const STATIC_CHECKS = CHECKS.flatMap(({ id, detect }) => (typeof detect === "function" ? [{ id, detect }] : []));
export const STATIC_CHECK_IDS = STATIC_CHECKS.map(({ id }) => id);

/** A built function and what the doctor says of it (the lab's steps add to the report). */
export interface Examined {
  built: BuiltFunction;
  report: FunctionReport;
}

/** Every static check on one built function, on a day (YYYY-MM-DD, default today's in UTC). */
export function examine(built: BuiltFunction, today = new Date().toISOString().slice(0, 10)): FunctionReport {
  const found = STATIC_CHECKS.map(({ id, detect }) => [id, detect(built, today)] as const);
  return {
    name: built.fn.logicalId,
    runtime: runtimeLabel(built.fn),
    profiles: profilesNotMeasured(STATIC_ONLY),
    findings: found.filter(([, message]) => message !== null).map(([id, message]) => finding(id, message!)),
    passed: found.filter(([, message]) => message === null).map(([id]) => id),
    bundle: built.graph.bundle,
    init: null,
    whyNotTraced: STATIC_ONLY,
    labCaveat: null,
  };
}

// What the checks share: finding problems in a build.

const listed = (items: string[]) => items.join(", ");

/**
 * A string only each provider holds (its own debug log line, which minifying keeps): how the
 * doctor recognizes one inside a bundle whose metafile it does not have (SAM's esbuild builder).
 */
export const PROVIDER_MARKERS: Record<string, string> = {
  "@aws-sdk/credential-provider-http": "@aws-sdk/credential-provider-http - ",
  "@aws-sdk/credential-provider-ini": "@aws-sdk/credential-provider-ini - ",
  "@aws-sdk/credential-provider-process": "@aws-sdk/credential-provider-process - ",
  "@aws-sdk/credential-provider-sso": "@aws-sdk/credential-provider-sso - ",
  "@aws-sdk/credential-provider-web-identity": "@aws-sdk/credential-provider-web-identity - ",
  "@smithy/credential-provider-imds": "/latest/meta-data/iam/security-credentials/",
};

/** A target entry of esbuild's (e.g. es2020, node14.7) that has no top-level await (es2022 and node 14.8 are the first with it). */
function tooOldForTopLevelAwait(target: string): boolean {
  const es = /^es(\d+)$/i.exec(target);
  if (es) return Number(es[1]) < 2022;
  const node = /^node(\d+)(?:\.(\d+))?/i.exec(target);
  if (node) return Number(node[1]) < 14 || (Number(node[1]) === 14 && Number(node[2] ?? 0) < 8);
  return false;
}

/** SAM's esbuild builder targets es2020 when BuildProperties has no Target (aws-lambda-builders). */
const SAM_ESBUILD_DEFAULT_TARGET = "es2020";

/** The code's `keepAlive: false` (or minified `keepAlive:!1`) that holds whatever happens: not one branch of a condition. */
function keepAliveTurnedOff(code: OwnCode): number[] {
  if (!code.text.includes("keepAlive")) return [];
  const source = ts.createSourceFile(code.file, code.text, ts.ScriptTarget.Latest, true);
  const isFalse = (node: ts.Expression) =>
    node.kind === ts.SyntaxKind.FalseKeyword ||
    (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.ExclamationToken && ts.isNumericLiteral(node.operand) && node.operand.text !== "0");
  // In a branch, whether keep-alive is off depends on run time: not a finding the build can show.
  const inBranch = (node: ts.Node): boolean => {
    for (let child = node, parent = node.parent; parent; child = parent, parent = parent.parent) {
      if (ts.isConditionalExpression(parent) && child !== parent.condition) return true;
      if (ts.isIfStatement(parent) && child !== parent.expression) return true;
      if (ts.isCaseClause(parent) || ts.isDefaultClause(parent)) return true;
      if (
        ts.isBinaryExpression(parent) &&
        child === parent.right &&
        [ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken].includes(parent.operatorToken.kind)
      )
        return true;
    }
    return false;
  };
  const lines: number[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAssignment(node) && node.name.getText(source).replace(/["']/g, "") === "keepAlive" && isFalse(node.initializer) && !inBranch(node)) {
      lines.push(source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

/** Where keep-alive is turned off for good: places in the function's own code, and whether its build's Define does it. */
function keepAliveOffAt({ fn, ownCode }: BuiltFunction): { inCode: string[]; byDefine: boolean } {
  return {
    inCode: ownCode.flatMap((code) => keepAliveTurnedOff(code).map((line) => `${code.file}:${line}`)),
    byDefine: !keepsAlive(fn),
  };
}

// What the fixes share: rewriting the function's template resource. A fix is made with the
// function's own builder (this project's pipeline or SAM's esbuild builder), so both are measured alike.

const buildPropertiesOf = (resource: TemplateResourceEntry): Record<string, unknown> => {
  resource.Metadata ??= {};
  resource.Metadata.BuildProperties ??= {};
  return resource.Metadata.BuildProperties as Record<string, unknown>;
};

/** An SDK package the function needs (a credential provider Lambda never reaches is not one). */
const isSdk = (specifier: string) => SDK_PACKAGE.test(specifier) && !UNUSED_CREDENTIAL_PROVIDERS.includes(packageName(specifier));

const NOT_BUNDLED = "the function is not bundled (SAM's npm builder): the fix adds a bundler (BuildMethod: esbuild), which the doctor does not choose for you";

/**
 * A fix of what the bundle holds: this project's Optimized profile (the SDK bundled, without the
 * providers Lambda never reaches), or SAM esbuild's External changed, each entry once.
 */
function bundleFix({ fn, pipeline }: BuiltFunction, change: (external: string[]) => string[]): Fix {
  if (pipeline)
    return {
      metric: "init",
      rewrite: (resource) => {
        buildPropertiesOf(resource).Profile = "Optimized";
      },
    };
  if (fn.buildMethod !== "esbuild") return { why: NOT_BUNDLED };
  return {
    metric: "init",
    rewrite: (resource) => {
      const properties = buildPropertiesOf(resource);
      properties.External = [...new Set(change(externalOf(properties)))];
    },
  };
}

/** esbuild's External as SAM's builder takes it: a list, or one comma-separated string. */
const externalOf = (properties: Record<string, unknown>): string[] => {
  const external = properties.External;
  if (Array.isArray(external)) return external.map(String);
  return typeof external === "string" ? external.split(",").map((entry) => entry.trim()) : [];
};

/** An assignment to CommonJS's exports (exports.handler =, module.exports =, module.exports.x =). */
const COMMONJS_EXPORT = /(?<![\w$.])(?:module\.)?exports(?:\.[\w$]+)?\s*=(?!=)/;

/** Where a SAM esbuild function's source exports its handler through CommonJS, which esbuild's ES module output does not export (null: it does not). */
function commonJsExportOf(fn: TemplateFunction): { file: string; statement: string } | null {
  const found = pipelineSource(fn, false);
  if ("why" in found) return null;
  try {
    const { source } = handlerSource({ logicalId: fn.logicalId, codeDir: found.codeDir, handler: found.handler, buildProperties: {} });
    const statement = COMMONJS_EXPORT.exec(readFileSync(source, "utf8"))?.[0];
    return statement ? { file: relative(fn.codeDir, source), statement: statement.replace(/\s*=$/, " =") } : null;
  } catch {
    return null; // no source to read: the fix's own build says why
  }
}

/** esbuild's wrapper of a CommonJS module in a bundle (`(mod = { exports: {} }).exports`, minified or not). */
const COMMONJS_WRAPPER = /\(\s*[\w$]+\s*=\s*\{\s*exports\s*:\s*\{\s*\}\s*\}\s*\)\s*\.exports/;

/**
 * What SAM users add to an ES-module bundle of CommonJS modules (Powertools' example app does):
 * a `require` for their requires of builtins, and the path variables they read. The imports are
 * renamed so they cannot meet the app's own.
 */
export const COMMONJS_BANNER = [
  'import { createRequire as __esmFixCreateRequire } from "node:module";',
  'import { fileURLToPath as __esmFixFileURLToPath } from "node:url";',
  'import { dirname as __esmFixDirname } from "node:path";',
  "const require = __esmFixCreateRequire(import.meta.url);",
  "const __filename = __esmFixFileURLToPath(import.meta.url);",
  "const __dirname = __esmFixDirname(__filename);",
].join(" ");

/**
 * BuildProperties.Banner with the CommonJS banner in its js entry. SAM passes a list entry to
 * esbuild as --banner:js=..., the form esbuild takes (a string would be --banner=js=..., which it
 * refuses); an app's own banner that gives a require already stays as it is.
 */
function withCommonJsBanner(banner: unknown): string[] {
  const entries = (Array.isArray(banner) ? banner : typeof banner === "string" ? [banner] : []).map(String);
  const js = entries.find((entry) => entry.startsWith("js="));
  if (js?.includes("createRequire")) return entries;
  const others = entries.filter((entry) => entry !== js);
  return [`js=${COMMONJS_BANNER}${js ? ` ${js.slice("js=".length)}` : ""}`, ...others];
}
