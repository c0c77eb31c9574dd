// What the doctor says about a function: every check it runs, how bad a problem it finds is, the
// fix in one line (with the section of docs/doctor.md that explains it), and the report's shape (--json).
// A finding's cost is the measuring step's (doctor/measure.mts): until it runs, `measured` is null.
import type { ProfileName } from "../builder/profiles.mts";
import type { InitTrace } from "../lab/init-trace.mts";

export type Severity = "info" | "warn" | "error";
const SEVERITIES: Severity[] = ["info", "warn", "error"];

interface CheckInfo {
  severity: Severity;
  /** What the check looks for, in a few words (the report's "passed" list). */
  title: string;
  /** The fix in one line; the section of docs/doctor.md named after the check says more. */
  fix: string;
}

const CHECKS = {
  "deprecated-runtime": {
    severity: "error",
    title: "the runtime is supported",
    fix: "move the function to a supported runtime: nodejs22.x (this template's) or nodejs24.x",
  },
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
  "init-error": {
    severity: "error",
    title: "INIT completes in the lab",
    fix: "fix what INIT throws (the message is the runtime's error); `npm run invoke` shows the function's whole log",
  },
  "invoke-error": {
    severity: "warn",
    title: "the first invoke answers the trigger's event",
    fix: "if the event is not one the handler takes, put one it does in events/<LogicalId>.json beside the template (the doctor, npm run invoke and the bench send it); else fix what the handler throws",
  },
  "code-cache-mismatch": {
    severity: "error",
    title: "the V8 code cache fits the function",
    fix: "rebuild (sam build) after changing Runtime, Architectures or MemorySize; a Warp code cache is made for nodejs22.x",
  },
} satisfies Record<string, CheckInfo>;

export type CheckId = keyof typeof CHECKS;

/** Where docs/doctor.md explains a check and its fix. */
const docLink = (id: CheckId) => `docs/doctor.md#${id}`;

/**
 * What a finding costs: the function as it is and as the fix would have it, measured in one
 * interleaved run (paired by round), p50s in milliseconds.
 */
export interface MeasuredCost {
  /** Init Duration of the cold start, or a warm invoke's end-to-end time (keep-alive pays there). */
  metric: "init" | "warm";
  /** Rounds both measured. */
  rounds: number;
  asIsMs: number;
  fixedMs: number;
  /** Median of the per-round differences as it is − fixed: what the fix buys (negative: it costs). */
  deltaMs: number;
  deltaCi95: [number, number] | null;
  /** asIsMs / fixedMs. */
  ratio: number;
  ratioCi95: [number, number] | null;
}

export interface Finding {
  id: CheckId;
  severity: Severity;
  message: string;
  fix: string;
  /** null: not measured (whyNotMeasured says why). */
  measured: MeasuredCost | null;
  whyNotMeasured: string | null;
}

/** What one of this template's build profiles (doctor/profile-builds.mts) buys a function: `measured` as a finding's, its fixed side the profile's build. */
export interface ProfileResult {
  profile: ComparedProfile;
  /** null: not measured (whyNotMeasured says why). */
  measured: MeasuredCost | null;
  whyNotMeasured: string | null;
  /** What the profile's build ran otherwise than the function (null: nothing). */
  note: string | null;
}

/** The code INIT loads: its size and the inputs that take the most of it. */
export interface BundleSize {
  bytes: number;
  largestInputs: { path: string; bytes: number }[];
}

/** One traced cold start in the lab (lab/init-trace.mts): where INIT's time went, what the handler's import loaded, the AWS calls INIT made. */
type InitSummary = Omit<InitTrace, "codeCacheRejected"> & {
  /** Those of its builtins a cold start should load only when it needs them. */
  heavyBuiltins: string[];
};

export interface FunctionReport {
  name: string;
  runtime: string;
  /** The function built from its source as this template's profiles build it, against the function as it is. */
  profiles: ProfileResult[];
  /** Problems only. */
  findings: Finding[];
  /** The checks that found nothing. */
  passed: CheckId[];
  bundle: BundleSize;
  /** Its traced cold start (null: not traced, whyNotTraced says why). */
  init: InitSummary | null;
  whyNotTraced: string | null;
  /** What the lab ran otherwise than Lambda would, so its trace and measurements did too (null: nothing). */
  labCaveat: string | null;
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
  /** How the measuring step ran (null: nothing ran in the lab). */
  measuring: { rounds: number; lab: string } | null;
}

/** Why a finding of the static checks alone is not measured. */
export const STATIC_ONLY = "the doctor ran its static checks only (--static)";

export function finding(id: CheckId, message: string): Finding {
  const { severity, fix } = CHECKS[id];
  return { id, severity, message, fix: `${fix} (${docLink(id)})`, measured: null, whyNotMeasured: STATIC_ONLY };
}

/** The profiles the doctor builds each function's source with (doctor/profile-builds.mts): what this template's pipeline would make of it. */
export const COMPARED_PROFILES = ["Optimized", "Warp"] as const satisfies readonly ProfileName[];
export type ComparedProfile = (typeof COMPARED_PROFILES)[number];

/** A function's profile results before anything is measured, for `why`. */
export const profilesNotMeasured = (why: string): ProfileResult[] =>
  COMPARED_PROFILES.map((profile) => ({ profile, measured: null, whyNotMeasured: why, note: null }));

/** Whether any finding is at or above a severity (--fail-on). */
export function failsAt(report: DoctorReport, threshold: Severity): boolean {
  const rank = SEVERITIES.indexOf(threshold);
  return report.functions.some((fn) => fn.findings.some((found) => SEVERITIES.indexOf(found.severity) >= rank));
}
