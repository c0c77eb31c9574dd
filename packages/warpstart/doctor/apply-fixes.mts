// --fix: the fixes the doctor built and measured, written into the app's own template (only the
// properties they change, the rest of its text as it was: doctor/template-edit.mts), with the
// diff printed; --dry-run prints the diff only. A profile measured faster than the function as it
// is (its 95% interval above zero) is written as adopt writes it: BuildMethod makefile, that
// Profile, and the Makefile that includes the package's rule. Code is never edited: a fix that is
// a change to the code stays advice, and so does one whose fixed copy did not build or answer.
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import { errorMessage } from "../core/cli.mts";
import { appDirOf } from "../core/paths.mts";
import { parseTemplate, type TemplateFunction, type TemplateResourceEntry } from "../core/template.mts";
import { includesRule, installedRule, makefileText, planOf } from "./adoption.mts";
import { type Examined, fixFor } from "./checks.mts";
import type { Finding, FunctionReport } from "./findings.mts";
import { editTemplate, type TemplateChange } from "./template-edit.mts";
import { unifiedDiff } from "./unified-diff.mts";

class FixError extends Error {
  override name = "FixError";
}

/** A fix whose measurement shows it costs (its 95% CI below zero) is not one to write. */
const costs = (finding: Finding) => (finding.measured?.deltaCi95?.[1] ?? 0) < 0;

/** A fix whose measurement shows it buys time (its 95% CI above zero). */
const buys = (measured: { deltaCi95: [number, number] | null } | null) => (measured?.deltaCi95?.[0] ?? 0) > 0;

/** The profile the lab measured fastest for a function, among those it measured faster than the function as it is (null: none). */
export function fastestProfile(report: FunctionReport): { profile: string; deltaMs: number } | null {
  const faster = report.profiles.filter((result) => buys(result.measured)).sort((a, b) => b.measured!.deltaMs - a.measured!.deltaMs);
  return faster[0] ? { profile: faster[0].profile, deltaMs: faster[0].measured!.deltaMs } : null;
}

/** A profile written into `after` (and the Makefile to write), or why not: as adopt writes it, or the Profile alone of a function warpstart builds already. */
function withProfile(
  source: TemplateFunction,
  after: TemplateResourceEntry,
  profile: string,
  templateFile: string,
): { makefile: [string, string] | null } | { why: string } {
  const appDir = appDirOf(templateFile);
  const makefile = `${source.codeDir}/Makefile`;
  if (source.buildMethod === "makefile" && existsSync(makefile) && includesRule(makefile)) {
    const metadata = (after.Metadata ?? {}) as { BuildProperties?: Record<string, unknown> };
    after.Metadata = { ...metadata, BuildProperties: { ...metadata.BuildProperties, Profile: profile } };
    return { makefile: null };
  }
  let rule: string;
  try {
    rule = installedRule(appDir);
  } catch {
    return {
      why: `warpstart is not installed in the app: npm install --save-dev warpstart, then npx warpstart adopt --profile ${profile} ${source.logicalId}`,
    };
  }
  const plan = planOf(source, after, profile, appDir);
  if ("why" in plan) return { why: plan.why };
  Object.assign(after, plan.adoption.change.after);
  const file = plan.adoption.makefile;
  return { makefile: existsSync(file) ? null : [file, makefileText(dirname(file), templateFile, rule)] };
}

/** What --fix would write: the template's new text, the Makefiles a profile needs, the fixes in it ("Fn: commonjs") and those left out. */
export function fixedTemplate(templateFile: string, text: string, examined: (Examined & { source: TemplateFunction })[]): FixedTemplate {
  // The text the doctor read, not the file now: a file changed since is refused when --fix writes.
  const resources = parseTemplate(text, templateFile).Resources;
  const applied: string[] = [];
  const makefiles: [string, string][] = [];
  const leftOut = examined.flatMap(({ report }) =>
    report.findings.filter(costs).map((finding) => `${report.name}: ${finding.id} (${finding.measured!.deltaMs.toFixed(1)} ms: it costs)`),
  );
  const changes: TemplateChange[] = examined.flatMap(({ built, report, source }) => {
    const measured = report.findings.filter((finding) => finding.measured && !costs(finding));
    const before = resources[report.name];
    const fastest = fastestProfile(report);
    if ((measured.length === 0 && !fastest) || !before) return [];
    const after = structuredClone(before);
    const fixes: string[] = [];
    for (const finding of measured) {
      const fix = fixFor(finding.id, built);
      if ("why" in fix) continue;
      fix.rewrite(after);
      fixes.push(finding.id);
    }
    let profile: string | null = null;
    if (fastest) {
      const written = withProfile(source, after, fastest.profile, templateFile);
      const label = `Profile ${fastest.profile} (${fastest.deltaMs.toFixed(1)} ms faster)`;
      if ("why" in written) leftOut.push(`${report.name}: ${label}: ${written.why}`);
      else if (written.makefile === null && source.buildMethod === "makefile") profile = label;
      else {
        // The pipeline's build replaces the one SAM's builder made, and the build fixes written for it.
        profile = fixes.length > 0 ? `${label}, in place of ${fixes.join(", ")}` : label;
        fixes.length = 0;
        if (written.makefile) makefiles.push(written.makefile);
      }
    }
    applied.push(...fixes.map((id) => `${report.name}: ${id}`), ...(profile ? [`${report.name}: ${profile}`] : []));
    return [{ logicalId: report.name, before, after }];
  });
  return { text: changes.length === 0 ? text : editTemplate(text, changes), makefiles, applied, leftOut };
}

interface FixedTemplate {
  text: string;
  /** The Makefiles a profile's function is built by, to write beside its code. */
  makefiles: [string, string][];
  applied: string[];
  leftOut: string[];
}

/**
 * Writes the fixed text over the template, unless it changed since the doctor read it (an edit
 * made meanwhile would be lost) or it is read-only (whoever made it so meant it, root or not).
 */
export function writeFixedTemplate(templateFile: string, readText: string, fixedText: string, by: "--fix" | "adopt" = "--fix"): void {
  const nothingWritten = `nothing written; the diff above is what ${by} would change`;
  const again = by === "adopt" ? "run adopt again" : "run the doctor again";
  if (readFileSync(templateFile, "utf8") !== readText)
    throw new FixError(`${templateFile} changed since it was read: ${nothingWritten}; ${again} on it as it is now`);
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
  const notApplied = fixed.leftOut.length > 0 ? `--fix leaves out: ${fixed.leftOut.join(", ")}\n` : "";
  if (fixed.applied.length === 0) return `${notApplied}--fix: nothing to apply (a fix is applied once the doctor has built and measured it)\n`;
  const verb = dryRun ? "would apply" : "applies";
  const makefiles = fixed.makefiles.map(([file, content]) => unifiedDiff("", content, relative(process.cwd(), file) || file)).join("");
  return `${notApplied}--fix ${verb} ${fixed.applied.length} fix${fixed.applied.length === 1 ? "" : "es"} to ${label}: ${fixed.applied.join(", ")}\n${unifiedDiff(readText, fixed.text, label)}${makefiles}`;
}
