// What the doctor says about a function: every check it runs, how bad a problem it finds is, the
// fix in one line (with the README section that explains it), and the report's shape (--json).
// A finding's cost is for the measuring step to fill in: until it exists, `measured` is null.

export type Severity = "info" | "warn" | "error";
const SEVERITIES: Severity[] = ["info", "warn", "error"];

interface CheckInfo {
  severity: Severity;
  /** What the check looks for, in a few words (the report's "passed" list, the README). */
  title: string;
  /** The fix in one line; the README section named after the check says more. */
  fix: string;
}

const CHECKS = {
  "runtime-sdk": {
    severity: "error",
    title: "the AWS SDK is bundled",
    fix: "bundle the SDK: esbuild without @aws-sdk/* in External (this project's Optimized or Warp profile)",
  },
  "credential-providers": {
    severity: "warn",
    title: "no credential provider Lambda never reaches is bundled",
    fix: "list them in esbuild's External (BuildProperties.External), as this project's Optimized profile does",
  },
  commonjs: {
    severity: "warn",
    title: "the handler is an ES module",
    fix: "build an ES module (Format: esm, OutExtension: [.js=.mjs]) and await INIT's work at top level",
  },
  "environment-variables": {
    severity: "info",
    title: "no environment variables",
    fix: "embed what is fixed at deploy time in the build (esbuild Define, this project's BuildProperties.Define)",
  },
  "source-maps": {
    severity: "warn",
    title: "no source maps",
    fix: "drop --enable-source-maps from NODE_OPTIONS and Sourcemap from the build",
  },
  "esbuild-target": {
    severity: "warn",
    title: "esbuild's target allows top-level await",
    fix: "set BuildProperties.Target to the runtime's Node (node22 for nodejs22.x) or es2022",
  },
  "keep-alive-off": {
    severity: "warn",
    title: "keep-alive is not turned off",
    fix: "leave the SDK's https agent at its default (keepAlive: true)",
  },
  "code-cache-mismatch": {
    severity: "error",
    title: "the V8 code cache fits the function",
    fix: "rebuild (sam build) after changing Runtime, Architectures or MemorySize; a Warp code cache is made for nodejs22.x",
  },
} satisfies Record<string, CheckInfo>;

export type CheckId = keyof typeof CHECKS;
export const CHECK_IDS = Object.keys(CHECKS) as CheckId[];

/** Where the README explains a check and its fix. */
const readmeLink = (id: CheckId) => `README.md#${id}`;

/** What the measuring step will record for a finding: how much longer a cold start takes with the problem than with it fixed. */
interface MeasuredCost {
  /** Median over the rounds, in milliseconds. */
  deltaMs: number;
  rounds: number;
}

export interface Finding {
  id: CheckId;
  severity: Severity;
  message: string;
  fix: string;
  /** null: the doctor's measuring step is not built yet, so nothing is measured. */
  measured: MeasuredCost | null;
}

/** The code INIT loads: its size and the inputs that take the most of it. */
export interface BundleSize {
  bytes: number;
  largestInputs: { path: string; bytes: number }[];
}

export interface FunctionReport {
  name: string;
  runtime: string;
  /** Problems only. */
  findings: Finding[];
  /** The checks that found nothing. */
  passed: CheckId[];
  bundle: BundleSize;
}

/** A function of the template the doctor does not examine, and why. */
interface SkippedFunction {
  name: string;
  runtime: string;
  why: string;
}

export interface DoctorReport {
  template: string;
  functions: FunctionReport[];
  skipped: SkippedFunction[];
}

export function finding(id: CheckId, message: string): Finding {
  const { severity, fix } = CHECKS[id];
  return { id, severity, message, fix: `${fix} (${readmeLink(id)})`, measured: null };
}

/** Whether any finding is at or above a severity (--fail-on). */
export function failsAt(report: DoctorReport, threshold: Severity): boolean {
  const rank = SEVERITIES.indexOf(threshold);
  return report.functions.some((fn) => fn.findings.some((found) => SEVERITIES.indexOf(found.severity) >= rank));
}
