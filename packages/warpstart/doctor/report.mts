// The doctor's report: a table per function for the terminal, the same as Markdown (--markdown),
// and JSON (--json). A finding's Measured Δ is what its fix bought in the lab, or why it is not measured.
import { relative } from "node:path";
import { markdownText, renderTable, type TableFormat } from "../core/tables.mts";
import { type BundleSize, type DoctorReport, type Finding, type FunctionReport, METRIC, type ProfileResult, STATIC_ONLY } from "./findings.mts";

const NOT_MEASURED = "not measured";

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;
const fixed1 = (value: number) => value.toFixed(1);
const kib = (bytes: number) => `${fixed1(bytes / 1024)} KiB`;
const ms = (value: number) => `${value > 0 ? "+" : ""}${fixed1(value)} ms`;
const interval = ([low, high]: [number, number], digits: number) => `[${low.toFixed(digits)}, ${high.toFixed(digits)}]`;

/** The table's cell: what the fix buys, its 95% CI, and the metric when it is not Init. */
function measuredDelta({ measured }: Finding): string {
  if (!measured) return NOT_MEASURED;
  return `${ms(measured.deltaMs)}${measured.deltaCi95 ? ` ${interval(measured.deltaCi95, 1)}` : ""}${measured.metric === "init" ? "" : ` (${METRIC[measured.metric]})`}`;
}

/** The line under a finding: its measurement in full, or why there is none. */
function measurement({ measured, whyNotMeasured }: Finding): string {
  if (!measured) return `not measured: ${whyNotMeasured}`;
  const ratio = `×${measured.ratio.toFixed(2)}${measured.ratioCi95 ? ` ${interval(measured.ratioCi95, 2)}` : ""}`;
  return `measured: ${METRIC[measured.metric]} p50 ${fixed1(measured.asIsMs)} ms as it is, ${fixed1(measured.fixedMs)} ms fixed (${ratio}, ${plural(measured.rounds, "round")})`;
}

/** What a profile's build of the function changes: Init p50 as it is → so built, and the change with its 95% CI (negative: faster). */
function profileLine({ profile, measured, whyNotMeasured, note }: ProfileResult): string {
  const noted = note ? ` (${note})` : "";
  if (!measured) return `${profile}: not measured: ${whyNotMeasured}${noted}`;
  const ci = measured.deltaCi95 ? ` ${interval([-measured.deltaCi95[1], -measured.deltaCi95[0]], 1)}` : "";
  return `${profile}: ${fixed1(measured.asIsMs)} → ${fixed1(measured.fixedMs)} ms, ${ms(-measured.deltaMs)}${ci}${noted}`;
}

/** Warp first (the question a user brings); none with --static, where nothing is built. */
const profileLines = (fn: FunctionReport) =>
  [...fn.profiles]
    .reverse()
    .filter((result) => result.whyNotMeasured !== STATIC_ONLY)
    .map(profileLine);

/** The traced cold start, in a few lines: INIT's split, its AWS calls, the builtins its handler's import loaded. */
function initLines(fn: FunctionReport): string[] {
  if (!fn.init) return [`INIT not traced: ${fn.whyNotTraced}`];
  const { initMs, phases, awsCalls, builtins, heavyBuiltins } = fn.init;
  const calls = awsCalls.map((call) => `${call.service} ${call.operation} (${call.status}) at ${fixed1(call.startMs)} ms, ${fixed1(call.ms)} ms`);
  const heavy = heavyBuiltins.length ? `; of them ${heavyBuiltins.join(", ")} only when needed` : "";
  // Node 18 and 20 have no tracing channel of module loading: their INIT is not split.
  if (!phases)
    return [
      `INIT in the lab ${fixed1(initMs)} ms (not split: its Node has no tracing of module loading)`,
      `  AWS calls during INIT: ${calls.join("; ") || "none"}`,
    ];
  return [
    `INIT in the lab ${fixed1(initMs)} ms: before the handler ${fixed1(phases.beforeHandlerMs)}, loading its code ${fixed1(phases.loadingCodeMs)}, top-level work ${fixed1(phases.topLevelWorkMs)}, after it ${fixed1(phases.afterHandlerMs)}`,
    `  AWS calls during INIT: ${calls.join("; ") || "none"}`,
    `  builtins its import loaded: ${builtins.join(", ") || "none new"}${heavy}`,
  ];
}

/** What the lab ran otherwise than Lambda would, if anything. */
const caveat = (fn: FunctionReport) => (fn.labCaveat ? [`Note: ${fn.labCaveat}`] : []);

/** What Measured Δ means in this report. */
export function measuringNote(report: Pick<DoctorReport, "measuring">): string {
  if (!report.measuring) return "Measured Δ: nothing ran in the lab (--static, or no function on a runtime the lab runs).";
  return `Measured Δ: what the fix buys, the median of the per-round differences (as it is − fixed) with its 95% CI, Init Duration unless said. A profile (Warp, Optimized, or one --profiles names): the function's source built by this template's pipeline in that profile, Init p50 as it is → so built, and the median change with its 95% CI. ${report.measuring.rounds} rounds in the lab, the function, its fixes and its profiles' builds in a shuffled order each round (${report.measuring.lab}).`;
}

function findingsTable(fn: FunctionReport, format: TableFormat): string {
  return renderTable(
    ["Finding", "Severity", "Measured Δ", "Fix"],
    fn.findings.map((found) => [found.id, found.severity, measuredDelta(found), found.fix]),
    format,
    ["left", "left", "right", "left"],
  );
}

function bundleTable(bundle: BundleSize, format: TableFormat): string {
  return renderTable(
    ["Largest inputs", "Size"],
    bundle.largestInputs.map((input) => [input.path, kib(input.bytes)]),
    format,
  );
}

/** The template, relative to where the doctor runs. */
const templateShown = (report: DoctorReport) => relative(process.cwd(), report.template) || report.template;

const verdict = (fn: FunctionReport) =>
  `${fn.findings.length === 0 ? "no findings" : plural(fn.findings.length, "finding")}, ${plural(fn.passed.length, "check")} passed; INIT loads ${kib(fn.bundle.bytes)}`;

function summary(report: DoctorReport): string {
  const findings = report.functions.flatMap((fn) => fn.findings);
  const bySeverity = (["error", "warn", "info"] as const).map((severity) => `${findings.filter((found) => found.severity === severity).length} ${severity}`);
  return `${plural(findings.length, "finding")} in ${plural(report.functions.length, "function")} (${bySeverity.join(", ")})${report.skipped.length ? `, ${report.skipped.length} skipped` : ""}`;
}

/** The terminal's report: per function, its findings' table, what each found, and the code INIT loads. */
export function renderText(report: DoctorReport): string {
  const sections = report.functions.map((fn) => {
    const lines = [`${fn.name} (${fn.runtime}): ${verdict(fn)}`, ...profileLines(fn), ...caveat(fn), ...initLines(fn)];
    if (fn.findings.length > 0) {
      lines.push(findingsTable(fn, "text"));
      for (const found of fn.findings) lines.push(`  ${found.id}: ${found.message}`, `    ${measurement(found)}`);
    }
    if (fn.bundle.largestInputs.length > 0) lines.push(bundleTable(fn.bundle, "text"));
    return lines.join("\n");
  });
  const skipped = report.skipped.map((fn) => `skipped ${fn.name} (${fn.runtime}): ${fn.why}`);
  return [`The doctor on ${templateShown(report)}`, ...sections, ...skipped, measuringNote(report), summary(report)].join("\n\n");
}

/** The same report as Markdown (--markdown FILE). */
export function renderMarkdown(report: DoctorReport): string {
  const sections = report.functions.map((fn) => {
    const lines = [
      `## ${markdownText(fn.name)} (${fn.runtime})`,
      "",
      verdict(fn),
      "",
      ...[...profileLines(fn), ...caveat(fn), ...initLines(fn)].map((line) => `- ${markdownText(line.trim())}`),
      "",
    ];
    if (fn.findings.length > 0) {
      lines.push(findingsTable(fn, "markdown"), "");
      for (const found of fn.findings) lines.push(`- **${found.id}**: ${markdownText(found.message)}; ${markdownText(measurement(found))}`);
      lines.push("");
    }
    if (fn.bundle.largestInputs.length > 0) lines.push(bundleTable(fn.bundle, "markdown"));
    return lines.join("\n");
  });
  const skipped = report.skipped.length ? ["## Skipped", "", ...report.skipped.map((fn) => `- ${markdownText(`${fn.name} (${fn.runtime}): ${fn.why}`)}`)] : [];
  return [`# The doctor on ${markdownText(templateShown(report))}`, summary(report), `_${markdownText(measuringNote(report))}_`, ...sections, ...skipped]
    .join("\n\n")
    .concat("\n");
}

/** The report as JSON (--json FILE): findings hold problems only, passed the checks that found none. */
export function renderJson(report: DoctorReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
