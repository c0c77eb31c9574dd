// The doctor's report: a table per function for the terminal, the same as Markdown (--markdown),
// and JSON (--json). Measured costs are "not measured" until the measuring step fills them in.
import { relative } from "node:path";
import { markdownText, renderTable, type TableFormat } from "../core/tables.mts";
import type { BundleSize, DoctorReport, Finding, FunctionReport } from "./findings.mts";

const NOT_MEASURED = "not measured";
export const MEASURING_NOTE = "Measured Δ: not measured yet (the doctor's measuring step is not built); every finding's measured is null.";

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const measuredDelta = (found: Finding) => (found.measured ? `+${found.measured.deltaMs.toFixed(1)} ms` : NOT_MEASURED);
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

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
    const lines = [`${fn.name} (${fn.runtime}): ${verdict(fn)}`];
    if (fn.findings.length > 0) {
      lines.push(findingsTable(fn, "text"));
      for (const found of fn.findings) lines.push(`  ${found.id}: ${found.message}`);
    }
    if (fn.bundle.largestInputs.length > 0) lines.push(bundleTable(fn.bundle, "text"));
    return lines.join("\n");
  });
  const skipped = report.skipped.map((fn) => `skipped ${fn.name} (${fn.runtime}): ${fn.why}`);
  return [`The doctor on ${templateShown(report)}`, ...sections, ...skipped, MEASURING_NOTE, summary(report)].join("\n\n");
}

/** The same report as Markdown (--markdown FILE). */
export function renderMarkdown(report: DoctorReport): string {
  const sections = report.functions.map((fn) => {
    const lines = [`## ${markdownText(fn.name)} (${fn.runtime})`, "", verdict(fn), ""];
    if (fn.findings.length > 0) {
      lines.push(findingsTable(fn, "markdown"), "");
      for (const found of fn.findings) lines.push(`- **${found.id}**: ${markdownText(found.message)}`);
      lines.push("");
    }
    if (fn.bundle.largestInputs.length > 0) lines.push(bundleTable(fn.bundle, "markdown"));
    return lines.join("\n");
  });
  const skipped = report.skipped.length ? ["## Skipped", "", ...report.skipped.map((fn) => `- ${markdownText(`${fn.name} (${fn.runtime}): ${fn.why}`)}`)] : [];
  return [`# The doctor on ${markdownText(templateShown(report))}`, summary(report), `_${MEASURING_NOTE}_`, ...sections, ...skipped].join("\n\n").concat("\n");
}

/** The report as JSON (--json FILE): findings hold problems only, passed the checks that found none. */
export function renderJson(report: DoctorReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
