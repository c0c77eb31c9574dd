// What the doctor says about a function: the report's shape (--json), its findings (of the checks
// in doctor/checks.mts) and how bad each is. A finding's cost is the measuring step's
// (doctor/measure.mts): until it runs, `measured` is null.
import { type PeerName, PROFILE_NAMES, type ProfileName } from "../builder/profiles.mts";
import type { InitTrace } from "../lab/init-trace.mts";
import type { CheckId } from "./checks.mts";

export type Severity = "info" | "warn" | "error";
const SEVERITIES: Severity[] = ["info", "warn", "error"];

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

/** How a report names each metric. */
export const METRIC: Record<MeasuredCost["metric"], string> = { init: "Init", warm: "warm invoke" };

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

/** The profiles the doctor builds each function's source with (doctor/profile-builds.mts): what this template's pipeline would make of it. */
export const COMPARED_PROFILES = ["Optimized", "Warp"] as const satisfies readonly ProfileName[];
/** A profile the doctor can build a function's source in: the pipeline's, or a peer's (measured beside them, never a fix). */
export type ComparedProfile = ProfileName | PeerName;

/** A function's profile results before anything is measured, for `why`: the default profiles', or those asked for. */
export const profilesNotMeasured = (why: string, profiles: readonly ComparedProfile[] = COMPARED_PROFILES): ProfileResult[] =>
  profiles.map((profile) => ({ profile, measured: null, whyNotMeasured: why, note: null }));

/** Whether any finding is at or above a severity (--fail-on). */
export function failsAt(report: DoctorReport, threshold: Severity): boolean {
  const rank = SEVERITIES.indexOf(threshold);
  return report.functions.some((fn) => fn.findings.some((found) => SEVERITIES.indexOf(found.severity) >= rank));
}

/** A profile's or fix's measurement that shows it buys time (its 95% CI above zero). */
const buys = (measured: { deltaCi95: [number, number] | null } | null) => (measured?.deltaCi95?.[0] ?? 0) > 0;

/** The profile the lab measured fastest for a function, among those it measured faster than the function as it is (null: none). */
export function fastestProfile(report: FunctionReport): { profile: string; deltaMs: number } | null {
  const faster = report.profiles
    .filter((result) => (PROFILE_NAMES as string[]).includes(result.profile) && buys(result.measured))
    .sort((a, b) => b.measured!.deltaMs - a.measured!.deltaMs);
  return faster[0] ? { profile: faster[0].profile, deltaMs: faster[0].measured!.deltaMs } : null;
}
