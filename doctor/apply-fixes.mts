// --fix: the fixes the doctor built and measured, written into the app's own template (only the
// properties they change, the rest of its text as it was: doctor/template-edit.mts), with the
// diff printed; --dry-run prints the diff only. Code is never edited: a fix that is a change to
// the code stays advice, and so does one whose fixed copy did not build or answer.
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { errorMessage } from "../core/cli.mts";
import { parseTemplate } from "../core/template.mts";
import { type Examined, fixFor } from "./checks.mts";
import type { Finding } from "./findings.mts";
import { editTemplate, type TemplateChange } from "./template-edit.mts";
import { unifiedDiff } from "./unified-diff.mts";

class FixError extends Error {
  override name = "FixError";
}

/** A fix whose measurement shows it costs (its 95% CI below zero) is not one to write. */
const costs = (finding: Finding) => (finding.measured?.deltaCi95?.[1] ?? 0) < 0;

/** What --fix would write: the template's new text, the fixes in it ("Fn: commonjs") and those left out, measured to cost. */
export function fixedTemplate(templateFile: string, text: string, examined: Examined[]): FixedTemplate {
  // The text the doctor read, not the file now: a file changed since is refused when --fix writes.
  const resources = parseTemplate(text, templateFile).Resources;
  const applied: string[] = [];
  const leftOut = examined.flatMap(({ report }) =>
    report.findings.filter(costs).map((finding) => `${report.name}: ${finding.id} (${finding.measured!.deltaMs.toFixed(1)} ms: it costs)`),
  );
  const changes: TemplateChange[] = examined.flatMap(({ built, report }) => {
    const measured = report.findings.filter((finding) => finding.measured && !costs(finding));
    const before = resources[report.name];
    if (measured.length === 0 || !before) return [];
    const after = structuredClone(before);
    for (const finding of measured) {
      const fix = fixFor(finding.id, built);
      if ("why" in fix) continue;
      fix.rewrite(after);
      applied.push(`${report.name}: ${finding.id}`);
    }
    return [{ logicalId: report.name, before, after }];
  });
  return { text: changes.length === 0 ? text : editTemplate(text, changes), applied, leftOut };
}

interface FixedTemplate {
  text: string;
  applied: string[];
  leftOut: string[];
}

/**
 * Writes the fixed text over the template, unless it changed since the doctor read it (an edit
 * made meanwhile would be lost) or it is read-only (whoever made it so meant it, root or not).
 */
export function writeFixedTemplate(templateFile: string, readText: string, fixedText: string): void {
  const nothingWritten = "nothing written; the diff above is what --fix would change";
  if (readFileSync(templateFile, "utf8") !== readText)
    throw new FixError(`${templateFile} changed since the doctor read it: ${nothingWritten}; run the doctor again on it as it is now`);
  const mode = statSync(templateFile).mode & 0o777;
  if ((mode & 0o222) === 0) throw new FixError(`${templateFile} is read-only (mode ${mode.toString(8).padStart(4, "0")}): ${nothingWritten}`);
  try {
    writeFileSync(templateFile, fixedText);
  } catch (error) {
    throw new FixError(`cannot write ${templateFile}: ${errorMessage(error)}; ${nothingWritten}`);
  }
}

/** The --fix section of the report: what is applied, and the diff. */
export function fixSection(label: string, readText: string, fixed: FixedTemplate, dryRun: boolean): string {
  const notApplied = fixed.leftOut.length > 0 ? `--fix leaves out what the lab measured to cost: ${fixed.leftOut.join(", ")}\n` : "";
  if (fixed.applied.length === 0) return `${notApplied}--fix: nothing to apply (a fix is applied once the doctor has built and measured it)\n`;
  const verb = dryRun ? "would apply" : "applies";
  return `${notApplied}--fix ${verb} ${fixed.applied.length} fix${fixed.applied.length === 1 ? "" : "es"} to ${label}: ${fixed.applied.join(", ")}\n${unifiedDiff(readText, fixed.text, label)}`;
}
