// The doctor's static checks: each reads a built function (doctor/artifact.mts) and its template
// settings, and says what it found wrong (a message) or nothing. What each costs is for the
// measuring step; these only name the problem.
import ts from "typescript";
import { keepsAlive } from "../builder/build.mts";
import { CODE_CACHE_RUNTIME, cacheFileOf } from "../builder/code-cache.mts";
import { UNUSED_CREDENTIAL_PROVIDERS } from "../builder/profiles.mts";
import { CUSTOM_RUNTIMES } from "../core/runtimes.mts";
import type { TemplateFunction } from "../core/template.mts";
import { type BuiltFunction, type OwnCode, packageName } from "./artifact.mts";
import { type CheckId, type FunctionReport, finding, profilesNotMeasured, STATIC_ONLY } from "./findings.mts";
import { deprecationOf, isLambdaNodeRuntime, LAMBDA_NODE_RUNTIMES } from "./lambda-runtimes.mts";

/** This project's custom runtime a function runs on (provided.al2023 with its runtime's layer), if any. */
const customRuntimeOf = (fn: TemplateFunction) =>
  fn.runtime === "provided.al2023" ? CUSTOM_RUNTIMES.find((runtime) => fn.layers.some((layer) => layer.logicalId === runtime.layer)) : undefined;

/** What a function runs on, as the report names it. */
export function runtimeLabel(fn: TemplateFunction): string {
  const custom = customRuntimeOf(fn);
  return custom ? `${custom.name} (${fn.runtime})` : (fn.runtime ?? "none");
}

/** Why the doctor does not examine a function (null: it does). */
export function whyNotExamined(fn: TemplateFunction): string | null {
  if (isLambdaNodeRuntime(fn.runtime) || customRuntimeOf(fn)) return null;
  if (fn.runtime === undefined) return "it has no Runtime (a container image): the doctor examines zip functions";
  const examined = `the doctor examines Lambda's Node.js runtimes (${LAMBDA_NODE_RUNTIMES.at(-1)} back to ${LAMBDA_NODE_RUNTIMES[0]}) and this project's ${CUSTOM_RUNTIMES.map((runtime) => runtime.name).join(" and ")} runtimes`;
  if (fn.runtime.startsWith("provided")) return `a custom runtime without this project's runtime layer: ${examined}`;
  if (fn.runtime.startsWith("nodejs")) return `${fn.runtime} is not a runtime Lambda has had: ${examined}`;
  return `${fn.runtime} is not Node.js: ${examined}`;
}

const listed = (items: string[]) => items.join(", ");

/** SDK imports left to run time, other than the credential providers Lambda never reaches (left out on purpose). */
function runtimeSdk({ graph }: BuiltFunction): string | null {
  const fromRuntime = graph.runtimeImports.filter(
    (specifier) => /^@(aws-sdk|smithy)\//.test(specifier) && !UNUSED_CREDENTIAL_PROVIDERS.includes(packageName(specifier)),
  );
  if (fromRuntime.length === 0) return null;
  return `imports ${listed(fromRuntime)} unbundled: INIT resolves and loads the SDK file by file from the runtime's own copy (or a layer's)`;
}

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

function credentialProviders({ graph, ownCode }: BuiltFunction): string | null {
  const bundled = UNUSED_CREDENTIAL_PROVIDERS.filter(
    (pkg) => graph.bundledPackages.includes(pkg) || ownCode.some(({ text }) => text.includes(PROVIDER_MARKERS[pkg]!)),
  );
  if (bundled.length === 0) return null;
  return `bundles ${listed(bundled)}: credential providers Lambda never reaches (a function's credentials are in its environment), compiled at INIT for nothing`;
}

function commonjs({ handlerFile, format }: BuiltFunction): string | null {
  if (format === "esm") return null;
  return `its handler ${handlerFile} is CommonJS: it cannot await at top level, so the work INIT starts (an SDK call, a secret) ends in the first invoke instead`;
}

function environmentVariables({ fn }: BuiltFunction): string | null {
  const names = Object.keys(fn.environment);
  if (names.length === 0) return null;
  return `${names.length} environment variable${names.length === 1 ? "" : "s"} (${listed(names)}): Lambda decrypts them on every cold start`;
}

function sourceMaps({ fn, besideHandler }: BuiltFunction): string | null {
  const reasons: string[] = [];
  if (/--enable-source-maps\b/.test(String(fn.environment.NODE_OPTIONS ?? "")))
    reasons.push("NODE_OPTIONS has --enable-source-maps: Node reads each module's source map as it loads it");
  const sourcemap = fn.buildProperties.Sourcemap;
  if (sourcemap !== undefined && sourcemap !== false && sourcemap !== "false")
    reasons.push(`the build writes source maps (BuildProperties.Sourcemap: ${sourcemap})`);
  const maps = besideHandler.filter((file) => file.endsWith(".map"));
  if (maps.length > 0) reasons.push(`the artifact ships ${listed(maps)}`);
  return reasons.length === 0 ? null : reasons.join("; ");
}

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

function esbuildTarget({ fn }: BuiltFunction): string | null {
  if (fn.buildMethod !== "esbuild") return null;
  const target = String(fn.buildProperties.Target ?? SAM_ESBUILD_DEFAULT_TARGET);
  const tooOld = target
    .split(",")
    .map((entry) => entry.trim())
    .filter(tooOldForTopLevelAwait);
  if (tooOld.length === 0) return null;
  const given = fn.buildProperties.Target === undefined ? ` (SAM's default: BuildProperties has no Target)` : "";
  return `esbuild targets ${target}${given}, too old for top-level await: an ES module cannot await INIT's work`;
}

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
export function keepAliveOffAt({ fn, ownCode }: BuiltFunction): { inCode: string[]; byDefine: boolean } {
  return {
    inCode: ownCode.flatMap((code) => keepAliveTurnedOff(code).map((line) => `${code.file}:${line}`)),
    byDefine: !keepsAlive(fn),
  };
}

function keepAliveOff(built: BuiltFunction): string | null {
  const { inCode, byDefine } = keepAliveOffAt(built);
  const places = inCode.map((place) => `keepAlive: false at ${place}`);
  if (byDefine) places.push("the build defines KEEP_ALIVE: false (BuildProperties.Define)");
  if (places.length === 0) return null;
  return `${listed(places)}: every AWS call opens a new TLS connection`;
}

/**
 * A Warp build's V8 code cache (sdk.<arch>.cache beside the handler, builder/code-cache.mts):
 * V8 takes it only on the CPU architecture and Node version it was made on. The build records
 * no memory size (its node flags count too): the lab's traced cold start checks that (doctor/dynamic.mts).
 */
function codeCacheMismatch({ fn, besideHandler }: BuiltFunction): string | null {
  const caches = besideHandler.filter((file) => /^sdk\.[\w-]+\.cache$/.test(file));
  if (caches.length === 0) return null;
  const problems: string[] = [];
  const expected = cacheFileOf(fn.architecture);
  if (!caches.includes(expected))
    problems.push(`it ships ${listed(caches)} and runs on ${fn.architecture}, whose V8 reads ${expected}: none, so INIT compiles the SDK`);
  if (fn.runtime !== CODE_CACHE_RUNTIME.lambdaRuntime)
    problems.push(`its code cache was made by ${CODE_CACHE_RUNTIME.lambdaRuntime}'s Node and it runs on ${runtimeLabel(fn)}, whose V8 rejects it`);
  return problems.length === 0 ? null : problems.join("; ");
}

/** The checks that read the build (and the date, for the runtime's lifecycle); init-error and invoke-error need the lab (doctor/dynamic.mts). */
const CHECK_FUNCTIONS: Record<Exclude<CheckId, "init-error" | "invoke-error">, (built: BuiltFunction, today: string) => string | null> = {
  "deprecated-runtime": ({ fn }, today) => deprecationOf(fn.runtime, today),
  "runtime-sdk": runtimeSdk,
  "credential-providers": credentialProviders,
  commonjs,
  "environment-variables": environmentVariables,
  "source-maps": sourceMaps,
  "esbuild-target": esbuildTarget,
  "keep-alive-off": keepAliveOff,
  "code-cache-mismatch": codeCacheMismatch,
};

export const STATIC_CHECK_IDS = Object.keys(CHECK_FUNCTIONS) as (keyof typeof CHECK_FUNCTIONS)[];

/** A built function and what the doctor says of it (the lab's steps add to the report). */
export interface Examined {
  built: BuiltFunction;
  report: FunctionReport;
}

/** Every static check on one built function, on a day (YYYY-MM-DD, default today's in UTC). */
export function examine(built: BuiltFunction, today = new Date().toISOString().slice(0, 10)): FunctionReport {
  const found = STATIC_CHECK_IDS.map((id) => [id, CHECK_FUNCTIONS[id](built, today)] as const);
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
